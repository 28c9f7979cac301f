#include "ir/parser.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "util/file.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

std::string DataPath(const std::string& name) {
  return std::string(XTUNE_SOURCE_DIR) + "/tests/data/" + name;
}

std::unique_ptr<Module> ParseOrDie(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, "test.hlo");
  EXPECT_THAT(m, IsOk());
  return m.ok() ? std::move(*m) : nullptr;
}

TEST(ParserTest, EveryOpcodeOfTheSubsetParses) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(DataPath("all_ops.hlo"));
  ASSERT_THAT(m, IsOk());
  std::set<Opcode> seen;
  for (const auto& c : (*m)->computations()) {
    for (const auto& inst : c->instructions()) seen.insert(inst->opcode());
  }
  // Every opcode in the list appears in the file except the three shifts,
  // tan, after-all (TokensAreEmptyTuplesThatPrintAsTokens has it),
  // rng-bit-generator (tests/data/rng_bit_generator.hlo), custom-call
  // (ir/library_call_test.cc) and the windowed operations
  // (eval/window_test.cc, tests/xla_compat/h200/conv/).
  std::vector<Opcode> missing;
#define XTUNE_CHECK_SEEN(e, text, kind) \
  if (!seen.contains(Opcode::e)) missing.push_back(Opcode::e);
  XTUNE_OPCODE_LIST(XTUNE_CHECK_SEEN)
#undef XTUNE_CHECK_SEEN
  std::vector<std::string> names;
  for (Opcode op : missing) names.emplace_back(OpcodeName(op));
  EXPECT_THAT(names, ::testing::UnorderedElementsAre(
                         "shift-left", "shift-right-logical",
                         "shift-right-arithmetic", "tan", "after-all",
                         "rng-bit-generator", "add-dependency",
                         "custom-call", "convolution", "reduce-window",
                         "select-and-scatter"));
  EXPECT_EQ((*m)->entry()->name(), "main.1");
  EXPECT_EQ((*m)->entry()->parameter_count(), 3);
  EXPECT_EQ((*m)->entry()->root()->name(), "result");
}

TEST(ParserTest, AttributesAreInterpreted) {
  auto m = ParseModule(R"hlo(
HloModule attrs

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[4,6]{1,0} parameter(0)
  z = f32[] constant(0)
  q = f32[2,4,6] parameter(1)
  sl = f32[2,2]{1,0} slice(p), slice={[1:3], [0:6:3]}
  pd = f32[3,5]{1,0} pad(sl, z), padding=1_0x-1_2_2
  r = f32[4]{0} reduce(p, z), dimensions={1}, to_apply=add
  d = f32[2,4,4] dot(q, p), lhs_contracting_dims={2}, rhs_contracting_dims={1}
  t = f32[6,4]{0,1} transpose(p), dimensions={1,0}
  c = pred[4,6] compare(p, p), direction=GE
  i = s32[4,6] iota(), iota_dimension=1
  ROOT tup = (f32[3,5], f32[4], f32[2,4,4], f32[6,4]{0,1}, pred[4,6], s32[4,6]) tuple(pd, r, d, t, c, i)
}
)hlo",
                       "attrs.hlo");
  ASSERT_THAT(m, IsOk());
  const Computation* e = (*m)->entry();
  const Instruction* sl = e->FindInstruction("sl");
  ASSERT_EQ(sl->attrs().slice.size(), 2u);
  EXPECT_EQ(sl->attrs().slice[0], (SliceDimension{1, 3, 1}));
  EXPECT_EQ(sl->attrs().slice[1], (SliceDimension{0, 6, 3}));
  const Instruction* pd = e->FindInstruction("pd");
  ASSERT_EQ(pd->attrs().padding.size(), 2u);
  EXPECT_EQ(pd->attrs().padding[0], (PaddingDimension{1, 0, 0}));
  EXPECT_EQ(pd->attrs().padding[1], (PaddingDimension{-1, 2, 2}));
  const Instruction* r = e->FindInstruction("r");
  EXPECT_EQ(r->attrs().dimensions, (std::vector<int64_t>{1}));
  ASSERT_EQ(r->called_computations().size(), 1u);
  EXPECT_EQ(r->called_computations()[0]->name(), "add");
  const Instruction* d = e->FindInstruction("d");
  EXPECT_EQ(d->attrs().dot.lhs_contracting, (std::vector<int64_t>{2}));
  EXPECT_EQ(d->attrs().dot.rhs_contracting, (std::vector<int64_t>{1}));
  EXPECT_TRUE(d->attrs().dot.lhs_batch.empty());
  EXPECT_EQ(e->FindInstruction("t")->shape().minor_to_major(),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(e->FindInstruction("c")->attrs().direction,
            ComparisonDirection::kGe);
  EXPECT_EQ(e->FindInstruction("i")->attrs().iota_dimension, 1);
  // Shapes without a layout get the default one.
  EXPECT_EQ(e->FindInstruction("q")->shape().minor_to_major(),
            (std::vector<int64_t>{2, 1, 0}));
}

TEST(ParserTest, KeepsMetadataBackendConfigAndUnknownAttributes) {
  auto m = ParseOrDie(R"hlo(
HloModule keep, is_scheduled=true, frontend_attributes={xla.sdy.meshes="{mesh = #sdy.mesh<[]>}"}

ENTRY %e (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0), sharding={devices=[2]0,1}, metadata={op_type="add" op_name="jit(f)/add" source_file="/a/b.py" source_line=12}
  ROOT %n = f32[8]{0} negate(f32[8]{0} %x), frontend_attributes={_xla_stream_annotation="1",x="{}"}, backend_config="opaque string with , and }"
}
)hlo");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->attributes().size(), 2u);
  EXPECT_EQ(m->attributes()[0].name, "is_scheduled");
  EXPECT_EQ(m->attributes()[1].value,
            R"({xla.sdy.meshes="{mesh = #sdy.mesh<[]>}"})");
  const Instruction* x = m->entry()->FindInstruction("x");
  EXPECT_EQ(x->attrs().metadata,
            R"({op_type="add" op_name="jit(f)/add" source_file="/a/b.py" source_line=12})");
  ASSERT_EQ(x->attrs().other.size(), 1u);
  EXPECT_EQ(x->attrs().other[0].name, "sharding");
  EXPECT_EQ(x->attrs().other[0].value, "{devices=[2]0,1}");
  const Instruction* n = m->entry()->FindInstruction("n");
  EXPECT_EQ(n->attrs().backend_config, R"("opaque string with , and }")");
  EXPECT_EQ(n->attrs().other[0].value, R"({_xla_stream_annotation="1",x="{}"})");
}

TEST(ParserTest, NamesCommentsLayoutsAndLineBreaks) {
  auto m = ParseOrDie(R"hlo(
HloModule m  // a comment
/* a block
   comment */
ENTRY e {
  %p0 = f32[8,128]{1,0:T(8,128)} parameter(0)
  p1 = f32[8,128]{1,0:T(8,128)(2,1)S(1)} parameter(1)
  ROOT sum
    = f32[8,128]
      add(/*index=0*/%p0,
          /*index=1*/p1)
}
)hlo");
  ASSERT_NE(m, nullptr);
  const Instruction* sum = m->entry()->root();
  EXPECT_EQ(sum->name(), "sum");
  EXPECT_EQ(sum->operand(0)->name(), "p0");
  EXPECT_EQ(sum->operand(1)->name(), "p1");
  EXPECT_EQ(sum->location().line, 8);
  EXPECT_EQ(sum->location().column, 8);
}

TEST(ParserTest, NoRootMeansLastInstructionAndNoEntryMeansLastComputation) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(DataPath("single_gemm_fusion.hlo"));
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ((*m)->entry()->name(), "e");
  EXPECT_EQ((*m)->entry()->root()->name(), "f");
  const Instruction* f = (*m)->entry()->root();
  EXPECT_EQ(f->opcode(), Opcode::kFusion);
  EXPECT_EQ(f->attrs().fusion_kind, "kCustom");
  EXPECT_EQ(f->attrs().backend_config,
            R"({"fusion_backend_config":{"kind":"__triton_gemm"}})");
  EXPECT_EQ(f->called_computations()[0]->root()->opcode(), Opcode::kDot);
}

TEST(ParserTest, XlaTestFilesParse) {
  for (const char* name : {"simple_optimization_test.hlo",
                           "single_gemm_fusion.hlo", "all_ops.hlo"}) {
    EXPECT_THAT(ParseModuleFile(DataPath(name)), IsOk()) << name;
  }
}

// XLA's async pairs run synchronously: a start is the operation itself
// (async-start a call of its `calls=`), updates and dones name its value.
TEST(ParserTest, AsyncStartsAndDonesBecomeTheOperation) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleFile(DataPath("async_collectives.hlo"));
  ASSERT_THAT(m, IsOk());
  const Instruction* root = (*m)->entry()->root();
  ASSERT_EQ(root->operand_count(), 6);
  EXPECT_EQ(root->operand(0)->opcode(), Opcode::kAllReduce);
  EXPECT_EQ(root->operand(0)->name(), "ar-start");
  EXPECT_EQ(root->operand(1)->opcode(), Opcode::kAllGather);
  EXPECT_EQ(root->operand(1)->shape().ToString(false), "f32[8]");
  EXPECT_EQ(root->operand(2)->opcode(), Opcode::kCollectivePermute);
  EXPECT_EQ(root->operand(3)->opcode(), Opcode::kCall);
  EXPECT_EQ(root->operand(3)->called_computations()[0]->name(),
            "async_computation");
  EXPECT_EQ(root->operand(4)->opcode(), Opcode::kCopy);
  EXPECT_EQ(root->operand(5)->opcode(), Opcode::kReduceScatter);
}

// A token orders side effects, which xtune has none of: an empty tuple that
// prints as token[].
TEST(ParserTest, TokensAreEmptyTuplesThatPrintAsTokens) {
  std::unique_ptr<Module> m = ParseOrDie(
      "HloModule m\nENTRY e {\n t = token[] parameter(0)\n"
      " a = token[] after-all(t, t)\n b = token[] after-all()\n"
      " ROOT r = (token[], token[]) tuple(a, b)\n}\n");
  ASSERT_NE(m, nullptr);
  const Instruction* a = m->entry()->root()->operand(0);
  EXPECT_EQ(a->opcode(), Opcode::kAfterAll);
  EXPECT_TRUE(a->shape().IsToken());
  EXPECT_TRUE(a->shape().IsTuple());
  EXPECT_TRUE(a->shape().tuple_shapes().empty());
  EXPECT_THAT(ToString(*m), HasSubstr("a = token[] after-all(token[] t, "
                                         "token[] t)"));
  // As XLA's verifier, after-all takes any operands; add-dependency orders
  // a value after a token.
  EXPECT_THAT(ParseModule("HloModule m\nENTRY e {\n p = f32[] parameter(0)\n"
                          " a = token[] after-all(p)\n"
                          " ROOT d = f32[] add-dependency(p, a)\n}\n",
                          "x.hlo"),
              IsOk());
  EXPECT_THAT(ParseModule("HloModule m\nENTRY e {\n p = f32[] parameter(0)\n"
                          " ROOT d = f32[] add-dependency(p, p)\n}\n",
                          "x.hlo"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("add-dependency's second operand must be a "
                                 "token, got f32[]")));
}

// As newer XLA parsers: an instruction may leave out its result shape,
// which shape inference supplies (not for parameters, constants and the
// like, whose shape is theirs to state).
TEST(ParserTest, ResultShapesMayBeLeftOut) {
  std::unique_ptr<Module> m = ParseOrDie(
      "HloModule m\nENTRY e {\n p = s16[3] parameter(0)\n q = negate(p)\n"
      " ROOT r = add(q, s16[3] p)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->root()->shape().ToString(false), "s16[3]");
  EXPECT_THAT(ParseModule("HloModule m\nENTRY e {\n p = parameter(0)\n}\n",
                          "x.hlo"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("x.hlo:3:2: parameter 'p' needs its result "
                                 "shape written out")));
  EXPECT_THAT(ParseModule("HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                          " q = s32[3] parameter(1)\n r = add(p, q)\n}\n",
                          "x.hlo"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("x.hlo:5:2: add 'r': ")));
}

TEST(ParserTest, ConstantsOfEveryType) {
  auto m = ParseOrDie(R"hlo(
HloModule c
ENTRY e {
  a = pred[3] constant({true, false, 1})
  b = s8[2] constant({-128, 127})
  c = u8[2] constant({0, 255})
  d = s32[2,2] constant({ { 1, 2 }, { 3, 4 } })
  e = u32[1] constant({4294967295})
  f = s64[1] constant({-9223372036854775808})
  g = f16[3] constant({1.5, -inf, nan})
  h = bf16[2] constant({3.140625, 1e-3})
  i = f32[2]{0} constant({1e10, -2.5E-3})
  j = f64[] constant(0.1)
  ROOT t = (pred[3], s8[2], u8[2], s32[2,2], u32[1], s64[1], f16[3], bf16[2], f32[2], f64[]) tuple(a, b, c, d, e, f, g, h, i, j)
}
)hlo");
  ASSERT_NE(m, nullptr);
  auto lit = [&](const char* n) -> const Literal& {
    return m->entry()->FindInstruction(n)->attrs().literal;
  };
  EXPECT_EQ(lit("a").GetInt(2), 1);
  EXPECT_EQ(lit("b").GetInt(0), -128);
  EXPECT_EQ(lit("c").GetInt(1), 255);
  EXPECT_EQ(lit("d").GetInt(2), 3);
  EXPECT_EQ(lit("e").GetInt(0), 4294967295);
  EXPECT_EQ(lit("f").GetInt(0), INT64_MIN);
  EXPECT_EQ(lit("g").GetDouble(0), 1.5);
  EXPECT_TRUE(std::isinf(lit("g").GetDouble(1)));
  EXPECT_TRUE(std::isnan(lit("g").GetDouble(2)));
  EXPECT_EQ(lit("h").GetDouble(1), 0.00099945068359375);  // rounded to bf16
  EXPECT_EQ(lit("i").GetDouble(1), static_cast<float>(-2.5e-3));
  EXPECT_EQ(lit("j").GetDouble(0), 0.1);
}

TEST(ParserTest, CanonicalKeyTextParsesAndPrintsBackIdentically) {
  // The `hlo` of the entry in XLA's test_autotune_cache.textproto.
  const std::string key =
      "{\n"
      "  tmp_0 = f16[1,16,17,3]{3,2,1,0} parameter(0)\n"
      "  tmp_1 = f16[16,51]{1,0} bitcast(f16[1,16,17,3]{3,2,1,0} tmp_0)\n"
      "  tmp_2 = s8[16,17,3]{2,1,0} parameter(1)\n"
      "  tmp_3 = s8[51,16]{0,1} bitcast(s8[16,17,3]{2,1,0} tmp_2)\n"
      "  tmp_4 = f16[51,16]{0,1} convert(s8[51,16]{0,1} tmp_3)\n"
      "  tmp_5 = f16[16,16]{1,0} dot(f16[16,51]{1,0} tmp_1, f16[51,16]{0,1} "
      "tmp_4), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  ROOT tmp_6 = f16[1,16,16]{2,1,0} bitcast(f16[16,16]{1,0} tmp_5)\n"
      "}";
  // Check the literal above really is the one in XLA's file.
  absl::StatusOr<std::string> file =
      ReadFile(DataPath("test_autotune_cache.textproto"));
  ASSERT_THAT(file, IsOk());
  std::string escaped = key;
  for (size_t pos = 0; (pos = escaped.find('\n', pos)) != std::string::npos;) {
    escaped.replace(pos, 1, "\\n");
  }
  EXPECT_THAT(*file, HasSubstr(escaped));

  absl::StatusOr<std::unique_ptr<Module>> m = ParseCanonicalComputation(key);
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ(CanonicalText(*(*m)->entry()), key);
}

TEST(ParserTest, ErrorsNameFileLineAndColumn) {
  auto status = ParseModule("HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0)\n"
                            "  ROOT q = f32[2] infeed(p)\n}\n",
                            "bad.hlo")
                    .status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               StartsWith("bad.hlo:5:19: 'infeed' moves data "
                                          "between the host and the device")));
  // The offending line and a caret follow.
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("ROOT q = f32[2] infeed(p)\n                    ^"));
}

// XLA's tests write modules without the `HloModule` line, as XLA's parser
// accepts them: the first computation or ENTRY may start the text.
TEST(ParserTest, ModulesWithoutHeaderParseAsXlaDoes) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"hlo(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={1}, to_apply=add
})hlo",
                                                          "tests/my_test.hlo");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ((*m)->name(), "my_test");  // named after the file
  EXPECT_EQ((*m)->entry()->name(), "e");
  EXPECT_EQ((*m)->computations().size(), 2u);
  // ENTRY first, with a signature, from a string.
  m = ParseModule(
      "ENTRY main (a: f32[2]) -> f32[2] {\n  a = f32[2] parameter(0)\n"
      "  ROOT n = f32[2] negate(a)\n}\n",
      "<string>");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ((*m)->name(), "module");
  // A computation without ENTRY: the last one is the entry, as with a header.
  m = ParseModule("e {\n  ROOT a = f32[2] parameter(0)\n}\n", "x.hlo");
  ASSERT_THAT(m, IsOk());
  EXPECT_EQ((*m)->entry()->name(), "e");
}

struct BadCase {
  const char* text;
  const char* error;  // expected prefix of the message
};

class ParserErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ParserErrorTest, GivesAClearError) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModule(GetParam().text, "x.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          StartsWith(GetParam().error)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParserErrorTest,
    ::testing::Values(
        BadCase{"", "x.hlo:1:1: expected 'HloModule' or a computation"},
        BadCase{"foo bar", "x.hlo:1:1: expected 'HloModule' or a computation"},
        BadCase{"HloModule m", "x.hlo:1:12: the module has no computations"},
        BadCase{"HloModule m\nENTRY e {\n p = f33[2] parameter(0)\n}",
                "x.hlo:3:6: unsupported element type 'f33'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2 parameter(0)\n}",
                "x.hlo:3:12: expected ',' or ']'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2]{0,0} parameter(0)\n}",
                "x.hlo:3:6: layout {0,0}"},
        BadCase{"HloModule m\nENTRY e {\n ROOT p = f32[2] negate(q)\n}",
                "x.hlo:3:25: unknown operand 'q'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n",
                "x.hlo:4:1: computation 'e' is not closed"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " p = f32[2] negate(p)\n}",
                "x.hlo:4:2: duplicate instruction name 'p'"},
        BadCase{"HloModule m\nENTRY e {\n ROOT a = f32[2] parameter(0)\n"
                " ROOT b = f32[2] negate(a)\n}",
                "x.hlo:4:2: computation 'e' has a second ROOT"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " r = f32[] reduce(p, p), dimensions={0}, to_apply=nope\n}",
                "x.hlo:4:51: unknown computation 'nope'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " c = pred[2] compare(p, p)\n}",
                "x.hlo:4:2: compare 'c' needs the attribute 'direction'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " c = pred[2] compare(p, p), direction=XX\n}",
                "x.hlo:4:39: unknown comparison direction 'XX'"},
        BadCase{"HloModule m\nENTRY e {\n c = f32[2] constant({1, 2, 3})\n}",
                "x.hlo:3:27: expected '}' to end dimension 0"},
        BadCase{"HloModule m\nENTRY e {\n c = s8[] constant(300)\n}",
                "x.hlo:3:20: integer 300 out of range for s8"},
        BadCase{"HloModule m\nENTRY e {\n c = f32[20] constant({...})\n}",
                "x.hlo:3:28: constant value is elided"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " q = f32[2] parameter(0)\n}",
                "x.hlo:4:2: parameter number 0 is used by both"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " n = f32[2] negate(f32[3] p)\n}",
                "x.hlo:4:20: operand 'p' is written as f32[3]"},
        BadCase{"HloModule m\nENTRY e (a: f32[3]) -> f32[2] {\n"
                " p = f32[2] parameter(0)\n}",
                "x.hlo:2:9: parameter 0 of computation 'e' is f32[3]"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0), "
                "metadata={op_name=\"x}\n}",
                "x.hlo:3:36: unterminated string"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " s = f32[2] slice(p), slice={[0:2}\n}",
                "x.hlo:4:34: expected ']'"},
        BadCase{"HloModule m\nENTRY e {\n t = token[] after-all()\n"
                " i = ((f32[2]), token[]) infeed(t)\n}",
                "x.hlo:4:26: 'infeed' moves data between the host and the "
                "device while the module runs"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[4] parameter(0)\n"
                " r = f32[4] reduce-precision(p), exponent_bits=0, "
                "mantissa_bits=-1\n}",
                "x.hlo:4:2: reduce-precision 'r': reduce-precision needs "
                "exponent_bits >= 1 and mantissa_bits >= 0"},
        BadCase{"HloModule m\nENTRY e {\n p = u64[2] parameter(0)\n"
                " r = (u64[2], u32[4]) rng-bit-generator(p), "
                "algorithm=rng_foo\n}",
                "x.hlo:4:2: rng-bit-generator 'r': rng-bit-generator's "
                "algorithm 'rng_foo' is none of"},
        BadCase{"HloModule m\nENTRY e {\n p = u64[2] parameter(0)\n"
                " r = (u64[2], f32[4]) rng-bit-generator(p)\n}",
                "x.hlo:4:2: rng-bit-generator 'r': rng-bit-generator must "
                "produce (u64[2], an integer array)"},
        BadCase{"HloModule m\nENTRY e {\n p = u32[2] parameter(0)\n"
                " r = (u32[2], u32[4]) rng-bit-generator(p)\n}",
                "x.hlo:4:2: rng-bit-generator 'r': rng-bit-generator's state "
                "is u32[2]"},
        BadCase{"HloModule m\nENTRY e {\n t = token[2] after-all()\n}",
                "x.hlo:3:11: expected '[]' after 'token'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " d = f32[2] all-gather-done(p)\n}",
                "x.hlo:4:29: all-gather-done 'd' takes an async start or "
                "update, not 'p'"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " s = (f32[2], f32[2]) all-gather-start(p), dimensions={0}\n"
                " n = f32[2] negate(s)\n}",
                "x.hlo:5:20: 's' is an async start or update: only its"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " s = f32[2] all-gather-start(p), dimensions={0}\n}",
                "x.hlo:4:2: all-gather-start has shape f32[2] but its shape "
                "must be a tuple with the result at index 1"},
        BadCase{"HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n"
                " s = (f32[2], f32[2]) all-gather-start(p), dimensions={0}\n"
                " d = f32[3] all-gather-done(s)\n}",
                "x.hlo:5:2: all-gather-done 'd' has shape f32[3] but its start "
                "computes f32[2]"}));

TEST(VerifierInParserTest, ShapeMismatchNamesInstructionAndLine) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(
      "HloModule m\nENTRY e {\n  a = f32[2,3] parameter(0)\n"
      "  b = f32[3,4] parameter(1)\n"
      "  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}\n}\n",
      "v.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          StartsWith("v.hlo:5:8: dot 'd' is declared as "
                                     "f32[2,5] but its operands give "
                                     "f32[2,4]")));
}

}  // namespace
}  // namespace xtune

namespace xtune {
namespace {

TEST(ParserTest, ElidedConstantsAreRefusedOrFilledDeterministically) {
  const char* text = R"hlo(HloModule m
ENTRY e {
  w = f32[3,4] constant({...})
  i = s32[5] constant({...})
  ROOT t = (f32[3,4], s32[5]) tuple(w, i)
})hlo";
  absl::StatusOr<std::unique_ptr<Module>> refused = ParseModule(text, "m.hlo");
  EXPECT_THAT(refused.status().message(),
              ::testing::HasSubstr("--fill_elided_constants"));
  ParseOptions fill;
  fill.fill_elided_constants = true;
  auto a = ParseModule(text, "m.hlo", fill);
  auto b = ParseModule(text, "m.hlo", fill);
  ASSERT_TRUE(a.ok() && b.ok());
  const Literal& wa = (*a)->entry()->FindInstruction("w")->attrs().literal;
  const Literal& wb = (*b)->entry()->FindInstruction("w")->attrs().literal;
  EXPECT_EQ(wa.bytes(), wb.bytes());
  bool varied = false;
  for (int64_t k = 0; k < wa.element_count(); ++k) {
    EXPECT_GE(wa.GetDouble(k), -1.0);
    EXPECT_LT(wa.GetDouble(k), 1.0);
    varied |= wa.GetDouble(k) != wa.GetDouble(0);
  }
  EXPECT_TRUE(varied);
  const Literal& ia = (*a)->entry()->FindInstruction("i")->attrs().literal;
  for (int64_t k = 0; k < ia.element_count(); ++k) {
    EXPECT_GE(ia.GetDouble(k), 0);
    EXPECT_LT(ia.GetDouble(k), 8);
  }
}

// XLA's FileCheck test files hold several modules separated by
// '// -----': xtune says so instead of a puzzling syntax error.
TEST(ParserTest, ASecondModuleIsRefusedWithTheReason) {
  auto m = ParseModule(R"hlo(HloModule a
ENTRY e {
  ROOT p = f32[2] parameter(0)
}
// -----
HloModule b
ENTRY e {
  ROOT p = f32[2] parameter(0)
}
)hlo", "two.hlo");
  EXPECT_THAT(m, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(HasSubstr("two.hlo:6:1: a second HloModule"),
                                HasSubstr("'// -----'"))));
}

// As XLA's parser: a signature's parameters may be `name shape`, and a
// rank-0 reduce-window or select-and-scatter has no window attribute.
TEST(ParserTest, XlasLooserFormsAreRead) {
  auto m = ParseModule(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e (x f32[], y: f32[]) -> f32[] {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] reduce-window(x, y), to_apply=add
})hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  auto bad = ParseModule(R"hlo(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[4] reduce-window(x, y), to_apply=add
})hlo");
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("the window has 0"));
}

}  // namespace
}  // namespace xtune
