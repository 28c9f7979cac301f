#include "codegen/registry.h"

#include "codegen/fake_backend.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "util/status_matchers.h"

namespace xtune {
namespace {

using ::testing::HasSubstr;
using ::xtune::testing::IsOk;
using ::xtune::testing::StatusIs;

TEST(RegistryTest, BuiltinsAreRegistered) {
  std::vector<std::string> names;
  for (const RegisteredBackend& b : RegisteredBackends()) {
    names.push_back(b.name);
    EXPECT_FALSE(b.description.empty());
  }
  EXPECT_THAT(names, ::testing::IsSupersetOf({"cpu", "interpreter"}));
  auto interpreter = CreateBackend("interpreter");
  ASSERT_THAT(interpreter, IsOk());
  EXPECT_EQ((*interpreter)->name(), "interpreter");
  EXPECT_FALSE((*interpreter)->Tunable());
}

TEST(RegistryTest, DeviceStringsWithoutMakingTheBackend) {
  auto interpreter = BackendDevice("interpreter");
  ASSERT_THAT(interpreter, IsOk());
  EXPECT_EQ(*interpreter, "interpreter");
  auto cpu = BackendDevice("cpu");
  ASSERT_THAT(cpu, IsOk());
  auto made = CreateBackend("cpu");
  ASSERT_THAT(made, IsOk());
  EXPECT_EQ(*cpu, (*made)->DeviceDescription());
  EXPECT_THAT(BackendDevice("tpu"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(RegistryTest, UnknownNameListsTheRegisteredOnes) {
  EXPECT_THAT(CreateBackend("tpu"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unknown backend 'tpu' (registered: ")));
}

TEST(RegistryTest, AProgramRegistersItsOwnBackend) {
  ASSERT_THAT(
      RegisterBackend({"registry_test_fake", "a scripted backend",
                       [](const BackendOptions&)
                           -> absl::StatusOr<std::unique_ptr<Backend>> {
                         return std::unique_ptr<Backend>(new FakeBackend(
                             {{KernelConfig("fake", {{"x", 1}})}}));
                       }}),
      IsOk());
  auto b = CreateBackend("registry_test_fake");
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ((*b)->DeviceDescription(), "FAKE: test device");
  // Names are unique, built-ins included.
  EXPECT_THAT(RegisterBackend({"cpu", "again", [](const BackendOptions&) {
                                 return absl::StatusOr<
                                     std::unique_ptr<Backend>>(
                                     absl::InternalError("never"));
                               }}),
              StatusIs(absl::StatusCode::kAlreadyExists));
}

TEST(RegistryTest, UnavailableBackendSaysWhyWithItsName) {
  ASSERT_THAT(RegisterBackend({"registry_test_absent", "needs a device",
                               [](const BackendOptions&)
                                   -> absl::StatusOr<std::unique_ptr<Backend>> {
                                 return absl::UnavailableError(
                                     "no NVIDIA driver (libcuda.so.1 not "
                                     "found)");
                               }}),
              IsOk());
  EXPECT_THAT(CreateBackend("registry_test_absent"),
              StatusIs(absl::StatusCode::kUnavailable,
                       "registry_test_absent: no NVIDIA driver (libcuda.so.1 "
                       "not found)"));
}

}  // namespace
}  // namespace xtune
