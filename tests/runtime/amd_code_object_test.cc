// The AMD code-object readers on synthetic inputs (tests/support/code_object_builder.h): the
// offload bundle, the msgpack subset, the metadata note's kernels with hidden arguments left out,
// and a refusal naming the problem for every malformed input.
#include "gpuops/runtime/amd_code_object.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "tests/support/code_object_builder.h"

namespace gpuops::metadata {
namespace {

using ::gpuops::testing::AmdKernelSpec;
using ::gpuops::testing::ArgsFor;
using ::gpuops::testing::Blob;
using ::gpuops::testing::BuildCodeObject;
using ::gpuops::testing::BuildElf;
using ::gpuops::testing::BuildOffloadBundle;
using ::gpuops::testing::MetadataFor;
using ::gpuops::testing::Msgpack;
using ::gpuops::testing::NoteFor;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Bytes View(const Blob& b) { return Bytes(b.data(), b.size()); }

TEST(AmdCodeObjectTest, KernelsListTheCallersArgumentsAndLeaveTheHiddenOnesOut) {
  const Blob co = BuildCodeObject(
      {{.name = "zeta", .args = ArgsFor({{"input", 8}, {"output", 8}, {"n", 4}})},
       {.name = "alpha", .args = ArgsFor({})},
       {.name = "unnamed", .args = {{"", 0, 8, "global_buffer"}, {"", 8, 4, "by_value"}}}});
  auto kernels = ReadAmdKernels(View(co));
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].name, "alpha");
  EXPECT_TRUE((*kernels)[0].params.empty());
  EXPECT_EQ((*kernels)[0].hidden_args, 3u);
  EXPECT_EQ((*kernels)[1].name, "unnamed");
  EXPECT_THAT((*kernels)[1].params,
              ElementsAre(KernelParam{"#0", 0, 8}, KernelParam{"#1", 8, 4}));
  EXPECT_EQ((*kernels)[2].name, "zeta");
  EXPECT_THAT((*kernels)[2].params, ElementsAre(KernelParam{"input", 0, 8},
                                                KernelParam{"output", 8, 8},
                                                KernelParam{"n", 16, 4}));
  EXPECT_EQ((*kernels)[2].hidden_args, 3u);
  EXPECT_EQ((*kernels)[2].kernarg_segment_size, 36u);
}

TEST(AmdCodeObjectTest, TheBundleYieldsEachArchsCodeObject) {
  const Blob a = BuildCodeObject({{.name = "k", .args = ArgsFor({{"x", 8}})}});
  const Blob b = BuildCodeObject({{.name = "k", .args = ArgsFor({{"x", 8}, {"m", 4}})}});
  const Blob bundle = BuildOffloadBundle({{"host-x86_64-unknown-linux-gnu", Blob()},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx90a", a},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx1030", b}});
  auto entries = ParseOffloadBundle(View(bundle));
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].arch(), "");
  EXPECT_EQ((*entries)[1].arch(), "gfx90a");
  auto gfx1030 = SelectCodeObject(*entries, "gfx1030");
  ASSERT_TRUE(gfx1030.ok()) << gfx1030.status();
  auto kernels = ReadAmdKernels(gfx1030->payload);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  EXPECT_EQ((*kernels)[0].params.size(), 2u);
  auto missing = SelectCodeObject(*entries, "gfx942");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("gfx90a, gfx1030"));
}

TEST(MsgpackTest, ReadsEveryKindOfTheSubsetBigEndian) {
  // {"a": [-1, -33, 200, 70000, 2^40, nil, true, "x"*40], "b": -129 (int16), "c": 1.5 (f64)}
  Msgpack m;
  m.Map(3).Str("a").Array(8).Raw({0xff}).Raw({0xd0, 0xdf}).UInt(200).UInt(70000);
  m.UInt(uint64_t{1} << 40).Raw({0xc0, 0xc3}).Str(std::string(40, 'x'));
  m.Str("b").Raw({0xd1, 0xff, 0x7f}).Str("c").Raw({0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0});
  Blob bytes = m.bytes();
  bytes.insert(bytes.end(), {0, 0, 0});  // note padding
  auto v = ParseMsgpack(View(bytes));
  ASSERT_TRUE(v.ok()) << v.status();
  const MsgpackValue* a = v->Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array().size(), 8u);
  EXPECT_EQ(a->array()[0].integer(), -1);
  EXPECT_EQ(a->array()[1].integer(), -33);
  EXPECT_EQ(a->array()[2].integer(), 200);
  EXPECT_EQ(a->array()[3].integer(), 70000);
  EXPECT_EQ(a->array()[4].integer(), int64_t{1} << 40);
  EXPECT_EQ(a->array()[5].kind(), MsgpackValue::Kind::kNil);
  EXPECT_TRUE(a->array()[6].boolean());
  EXPECT_EQ(a->array()[7].string(), std::string(40, 'x'));
  EXPECT_EQ(v->Find("b")->integer(), -129);
  EXPECT_EQ(v->Find("c")->kind(), MsgpackValue::Kind::kFloat);
  EXPECT_EQ(v->Find("missing"), nullptr);
}

struct Malformed {
  const char* what;
  std::function<Blob()> make;
  const char* fragment;
};

class MalformedAmdInput : public ::testing::TestWithParam<Malformed> {};

// Each input is refused with kInvalidArgument naming the problem, never a crash.
TEST_P(MalformedAmdInput, IsInvalidArgumentNamingTheProblem) {
  const Blob bytes = GetParam().make();
  absl::Status s = ReadAmdKernels(View(bytes)).status();
  if (bytes.size() >= 24 && std::string(bytes.begin(), bytes.begin() + 24) ==
                                "__CLANG_OFFLOAD_BUNDLE__") {
    s = ParseOffloadBundle(View(bytes)).status();
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr(GetParam().fragment));
}

Blob WithMetadata(const Blob& msgpack) {
  return BuildElf(224, {{".note", 7, NoteFor(msgpack)}});
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, MalformedAmdInput,
    ::testing::Values(
        Malformed{"CudaElf", [] { return BuildElf(190, {}); }, "e_machine 190"},
        Malformed{"NoNote", [] { return BuildElf(224, {{".text", 1, Blob(8, 0)}}); },
                  "no NT_AMDGPU_METADATA"},
        Malformed{"NoteRunsPastSection",
                  [] {
                    Blob note = NoteFor(Blob(16, 0x80));
                    note.resize(note.size() - 8);
                    return BuildElf(224, {{".note", 7, note}});
                  },
                  "runs past the section"},
        Malformed{"NoKernelsKey", [] { return WithMetadata(Msgpack().Map(0).bytes()); },
                  "no amdhsa.kernels"},
        Malformed{"ArrayCountBeyondTheBytes",
                  [] { return WithMetadata(Msgpack().Raw({0xdd, 0xff, 0xff, 0xff, 0xff}).bytes()); },
                  "cannot fit"},
        Malformed{"MapCountBeyondTheBytes",
                  [] { return WithMetadata(Msgpack().Raw({0xdf, 0x7f, 0, 0, 0}).bytes()); },
                  "cannot fit"},
        Malformed{"StringPastTheEnd",
                  [] { return WithMetadata(Msgpack().Raw({0xdb, 0, 0, 1, 0, 'a'}).bytes()); },
                  "runs past the end"},
        Malformed{"DeepNesting",
                  [] {
                    Msgpack m;
                    for (int i = 0; i < 40; ++i) m.Array(1);
                    m.UInt(0);
                    return WithMetadata(m.bytes());
                  },
                  "nesting deeper than 32"},
        Malformed{"ExtType", [] { return WithMetadata(Msgpack().Raw({0xd4, 1, 2}).bytes()); },
                  "unsupported type byte 0xd4"},
        Malformed{"TrailingGarbage",
                  [] { return WithMetadata(Msgpack().Map(0).Raw({0, 7}).bytes()); },
                  "not zero padding"},
        Malformed{"ArgPastKernarg",
                  [] {
                    return BuildCodeObject({{.name = "k",
                                             .args = {{"x", 0, 8, "global_buffer"}},
                                             .kernarg_size = 4}});
                  },
                  "lies past the kernarg segment"},
        Malformed{"ArgWithoutValueKind",
                  [] {
                    Msgpack m;
                    m.Map(1).Str("amdhsa.kernels").Array(1).Map(3).Str(".name").Str("k");
                    m.Str(".kernarg_segment_size").UInt(8).Str(".args").Array(1).Map(2);
                    m.Str(".offset").UInt(0).Str(".size").UInt(8);
                    return WithMetadata(m.bytes());
                  },
                  "no .value_kind"},
        Malformed{"KernelTwice",
                  [] {
                    return BuildCodeObject({{.name = "k", .args = ArgsFor({})},
                                            {.name = "k", .args = ArgsFor({})}});
                  },
                  "listed twice"},
        Malformed{"NegativeOffset",
                  [] {
                    Msgpack m;
                    m.Map(1).Str("amdhsa.kernels").Array(1).Map(3).Str(".name").Str("k");
                    m.Str(".kernarg_segment_size").UInt(8).Str(".args").Array(1).Map(3);
                    m.Str(".offset").Raw({0xff}).Str(".size").UInt(8).Str(".value_kind").Str("by_value");
                    return WithMetadata(m.bytes());
                  },
                  "non-negative 32-bit"},
        Malformed{"BundleCountBeyondTheBytes",
                  [] {
                    Blob b = BuildOffloadBundle({});
                    gpuops::testing::PutAt<uint64_t>(b, 24, uint64_t{1} << 60);
                    return b;
                  },
                  "cannot fit"},
        Malformed{"BundlePayloadOutside",
                  [] {
                    Blob b = BuildOffloadBundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", Blob(8, 1)}});
                    gpuops::testing::PutAt<uint64_t>(b, 32, uint64_t{1} << 40);
                    return b;
                  },
                  "lies outside"}),
    [](const ::testing::TestParamInfo<Malformed>& info) { return info.param.what; });

}  // namespace
}  // namespace gpuops::metadata
