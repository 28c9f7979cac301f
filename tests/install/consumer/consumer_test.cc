// A user's test: the module compiles with nothing to tune (every fusion is
// in the cache xtune_add_test loads) and runs right.
#include <cstdlib>

#include "xtune/compiler.h"
#include "xtune/testing.h"

TEST(ConsumerTest, RunsFromTheCache) {
  ASSERT_OK_AND_ASSIGN(auto compiler, xtune::Compiler::Create());
  ASSERT_OK_AND_ASSIGN(auto program, compiler->CompileFile(std::getenv("MODULE_FILE")));
  EXPECT_EQ(program->stats().tuned, 0) << program->stats().summary;
  ASSERT_OK(program->RunAndVerify());
}
