// The metadata readers on well-formed synthetic cubins and fatbins, and on a corpus of malformed
// inputs (run under ASan + UBSan by the asan preset): every one is an error naming the problem.
#include "gpuops/runtime/kernel_metadata.h"

#include <functional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/cubin_builder.h"

namespace gpuops::metadata {
namespace {

using ::gpuops::testing::Blob;
using ::gpuops::testing::BuildCubin;
using ::gpuops::testing::BuildElf;
using ::gpuops::testing::BuildFatbin;
using ::gpuops::testing::EntrySpec;
using ::gpuops::testing::HvalRecord;
using ::gpuops::testing::KparamRecord;
using ::gpuops::testing::NvInfoFor;
using ::gpuops::testing::Put;
using ::gpuops::testing::PutAt;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

Bytes View(const Blob& b) { return Bytes(b.data(), b.size()); }

Blob Concat(Blob a, const Blob& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(NvInfoTest, ReadsV1ParametersSortedByOrdinal) {
  auto params = ParseNvInfo(View(NvInfoFor({8, 8, 4, 4, 8})), "k");
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(*params, (std::vector<KernelParam>{
                         {"#0", 0, 8}, {"#1", 8, 8}, {"#2", 16, 4}, {"#3", 20, 4}, {"#4", 24, 8}}));
}

TEST(NvInfoTest, ReadsV2Sizes) {
  auto params = ParseNvInfo(View(NvInfoFor({8, 4096, 4}, /*version=*/2)), "k");
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(*params, (std::vector<KernelParam>{{"#0", 0, 8}, {"#1", 8, 4096}, {"#2", 4104, 4}}));
}

TEST(NvInfoTest, EmptySectionMeansNoParameters) {
  auto params = ParseNvInfo(Bytes(), "k");
  ASSERT_TRUE(params.ok());
  EXPECT_TRUE(params->empty());
}

TEST(CubinTest, ListsEveryKernelWithItsParameters) {
  const Blob cubin = BuildCubin({{"zeta", {8}}, {"alpha", {8, 4}}, {"empty", {}}});
  auto kernels = ReadCubinKernels(View(cubin));
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 3u);
  EXPECT_EQ((*kernels)[0].name, "alpha");
  EXPECT_EQ((*kernels)[0].params, (std::vector<KernelParam>{{"#0", 0, 8}, {"#1", 8, 4}}));
  EXPECT_EQ((*kernels)[1].name, "empty");
  EXPECT_TRUE((*kernels)[1].params.empty());
  EXPECT_EQ((*kernels)[2].name, "zeta");
}

TEST(CubinTest, RefusesANonCudaElf) {
  auto kernels = ReadCubinKernels(View(BuildElf(62, {})));
  EXPECT_EQ(kernels.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kernels.status().message(), HasSubstr("ELF machine 62, expected 190"));
}

TEST(FatbinTest, ListsEntriesOfConsecutiveContainers) {
  const Blob first =
      BuildFatbin({{.kind = 2, .arch = 90, .flags = 0x100011, .payload = BuildCubin({{"k", {8}}})},
                   {.kind = 2, .arch = 80, .flags = 0x11, .payload = BuildCubin({{"k", {8}}})}});
  const Blob second = BuildFatbin(
      {{.kind = 1, .arch = 90, .flags = 0x8011, .payload = Blob(40, 7), .compressed_size = 33}});
  Blob both = Concat(first, second);
  both.resize(both.size() + 16, 0);  // trailing zero padding is allowed
  auto entries = ParseFatbin(View(both));
  ASSERT_TRUE(entries.ok()) << entries.status();
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].arch_name(), "sm_90a");
  EXPECT_EQ((*entries)[1].arch_name(), "sm_80");
  EXPECT_EQ((*entries)[2].arch_name(), "compute_90");
  EXPECT_TRUE((*entries)[2].compressed);
  EXPECT_EQ((*entries)[2].payload.size(), 33u);

  auto elf = SelectElf(*entries, "sm_80");
  ASSERT_TRUE(elf.ok());
  auto kernels = ReadCubinKernels(elf->payload);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  EXPECT_EQ(kernels->at(0).name, "k");
}

TEST(FatbinTest, SelectElfReportsMissingAndCompressedEntries) {
  auto entries = ParseFatbin(View(BuildFatbin({{.kind = 2,
                                                .arch = 90,
                                                .flags = 0x102011,
                                                .payload = Blob(64, 1),
                                                .compressed_size = 50}})));
  ASSERT_TRUE(entries.ok());
  auto compressed = SelectElf(*entries, "sm_90a");
  EXPECT_EQ(compressed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(compressed.status().message(), HasSubstr("is compressed"));
  auto missing = SelectElf(*entries, "sm_80");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("entries: sm_90a (compressed)"));
}

// --- The malformed corpus.

struct Malformed {
  std::string name;
  std::function<Blob()> make;
  std::string message;
};

std::string CaseName(const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; }

class MalformedNvInfo : public ::testing::TestWithParam<Malformed> {};
TEST_P(MalformedNvInfo, IsInvalidArgumentNamingTheProblem) {
  const Blob b = GetParam().make();
  auto params = ParseNvInfo(View(b), "kern");
  ASSERT_FALSE(params.ok());
  EXPECT_EQ(params.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(params.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, MalformedNvInfo,
    ::testing::Values(
        Malformed{"WrongFormatByte",
                  [] {
                    return Blob{5, 0x17, 0, 0};
                  },
                  "unknown format byte 5"},
        Malformed{"ZeroFormatByte",
                  [] {
                    return Blob{0, 0, 0, 0};
                  },
                  "unknown format byte 0"},
        Malformed{"TruncatedHeader", [] { return Blob{4}; }, "truncated record header"},
        Malformed{"TruncatedValue",
                  [] {
                    return Blob{3, 0x19, 1};
                  },
                  "truncated 2-byte value"},
        Malformed{"RecordLongerThanSection",
                  [] {
                    Blob r = KparamRecord(0, 0, 8);
                    PutAt<uint16_t>(r, 2, 200);
                    return r;
                  },
                  "claims 200 payload bytes, the section has 12 left"},
        Malformed{"SizeThatOverflows",
                  [] {
                    Blob r = KparamRecord(0, 0, 8);
                    PutAt<uint16_t>(r, 2, 0xffff);
                    return r;
                  },
                  "claims 65535 payload bytes"},
        Malformed{"KparamPayloadNot12",
                  [] {
                    Blob r(12, 0);  // SVAL KPARAM_INFO with an 8-byte payload
                    r[0] = 4;
                    r[1] = 0x17;
                    r[2] = 8;
                    return r;
                  },
                  "payload is 8 bytes, expected 12"},
        Malformed{"DuplicateOrdinal",
                  [] { return Concat(KparamRecord(0, 0, 8), KparamRecord(0, 8, 8)); },
                  "ordinals are not 0..1"},
        Malformed{"OrdinalGap", [] { return Concat(KparamRecord(0, 0, 8), KparamRecord(2, 8, 8)); },
                  "ordinal 2 where 1 was expected"},
        Malformed{"OverlappingParams",
                  [] { return Concat(KparamRecord(0, 0, 8), KparamRecord(1, 4, 8)); },
                  "overlaps the previous one"},
        Malformed{"ZeroSizeParam", [] { return KparamRecord(0, 0, 0); }, "has size 0"},
        Malformed{"ParamsPastCbankSize",
                  [] { return Concat(KparamRecord(0, 0, 8), HvalRecord(0x19, 4)); },
                  "past CBANK_PARAM_SIZE 4"},
        Malformed{"CbankWithoutParams", [] { return HvalRecord(0x19, 16); },
                  "no KPARAM_INFO records"},
        Malformed{"MixedVersions",
                  [] { return Concat(KparamRecord(0, 0, 8, 1), KparamRecord(1, 8, 8, 2)); },
                  "v1 and v2 records mixed"},
        Malformed{"CbankAsNval",
                  [] {
                    return Blob{1, 0x19, 8, 0};
                  },
                  "CBANK_PARAM_SIZE with format 1"}),
    CaseName);

class MalformedElf : public ::testing::TestWithParam<Malformed> {};
TEST_P(MalformedElf, IsInvalidArgumentNamingTheProblem) {
  const Blob b = GetParam().make();
  auto kernels = ReadCubinKernels(View(b));
  ASSERT_FALSE(kernels.ok());
  EXPECT_EQ(kernels.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kernels.status().message(), HasSubstr(GetParam().message));
}

Blob GoodCubin() { return BuildCubin({{"k", {8, 4}}}); }
// Offset of section header `i` in GoodCubin()'s layout.
size_t SectionHeaderAt(const Blob& b, size_t i) {
  uint64_t shoff = 0;
  std::memcpy(&shoff, b.data() + 40, 8);
  return shoff + i * 64;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, MalformedElf,
    ::testing::Values(
        Malformed{"Empty", [] { return Blob(); }, "shorter than the 64-byte ELF64 header"},
        Malformed{"TruncatedHeader",
                  [] {
                    Blob b = GoodCubin();
                    b.resize(40);
                    return b;
                  },
                  "40 bytes, shorter than"},
        Malformed{"BadMagic",
                  [] {
                    Blob b = GoodCubin();
                    b[1] = 'X';
                    return b;
                  },
                  "bad magic"},
        Malformed{"Elf32",
                  [] {
                    Blob b = GoodCubin();
                    b[4] = 1;
                    return b;
                  },
                  "class 1"},
        Malformed{"BigEndian",
                  [] {
                    Blob b = GoodCubin();
                    b[5] = 2;
                    return b;
                  },
                  "data encoding 2"},
        Malformed{"SectionTableOutsideFile",
                  [] {
                    Blob b = GoodCubin();
                    PutAt<uint64_t>(b, 40, b.size() + 100);
                    return b;
                  },
                  "lies outside"},
        Malformed{"SectionCountOverflows",
                  [] {
                    Blob b = GoodCubin();
                    PutAt<uint16_t>(b, 60, 0xfff0);
                    return b;
                  },
                  "run past the end"},
        Malformed{"SectionHeaderSizeTooSmall",
                  [] {
                    Blob b = GoodCubin();
                    PutAt<uint16_t>(b, 58, 32);
                    return b;
                  },
                  "e_shentsize 32"},
        Malformed{"SectionOffsetPlusSizeOverflows",
                  [] {
                    Blob b = GoodCubin();
                    const size_t h = SectionHeaderAt(b, 2);
                    PutAt<uint64_t>(b, h + 24, ~uint64_t{0} - 8);
                    PutAt<uint64_t>(b, h + 32, 64);
                    return b;
                  },
                  "runs past the end"},
        Malformed{"SectionLongerThanFile",
                  [] {
                    Blob b = GoodCubin();
                    PutAt<uint64_t>(b, SectionHeaderAt(b, 2) + 32, b.size());
                    return b;
                  },
                  "runs past the end"},
        Malformed{"NameTableIndexOutOfRange",
                  [] {
                    Blob b = GoodCubin();
                    PutAt<uint16_t>(b, 62, 99);
                    return b;
                  },
                  "section-name table index 99"},
        Malformed{"NameOffsetOutsideTable",
                  [] {
                    Blob b = GoodCubin();
                    PutAt<uint32_t>(b, SectionHeaderAt(b, 1), 5000);
                    return b;
                  },
                  "name offset 5000"},
        Malformed{"NameNotTerminated",
                  [] {
                    Blob b = GoodCubin();
                    // Shrink the name table so the last name loses its NUL.
                    const size_t h = SectionHeaderAt(b, 3);
                    uint64_t size = 0;
                    std::memcpy(&size, b.data() + h + 32, 8);
                    PutAt<uint64_t>(b, h + 32, size - 1);
                    PutAt<uint32_t>(b, SectionHeaderAt(b, 2), static_cast<uint32_t>(size - 4));
                    return b;
                  },
                  "not NUL-terminated"},
        Malformed{"NvInfoSectionCorrupt",
                  [] {
                    return BuildElf(190, {{".nv.info.k", 0x70000000, Blob{9, 9, 9, 9}}});
                  },
                  ".nv.info.k record at offset 0: unknown format byte 9"},
        Malformed{"TwoSectionsForOneKernel",
                  [] {
                    return BuildElf(190, {{".nv.info.k", 0x70000000, NvInfoFor({8})},
                                          {".nv.info.k", 0x70000000, NvInfoFor({8})}});
                  },
                  "two .nv.info sections for kernel k"},
        Malformed{"NestedFatbinInsteadOfElf",
                  [] { return BuildFatbin({{.payload = GoodCubin()}}); }, "bad magic"}),
    CaseName);

TEST(ElfTest, ZeroLengthSectionsAreAccepted) {
  auto kernels = ReadCubinKernels(View(BuildElf(
      190, {{".nv.info.k", 0x70000000, Blob()}, {".text.k", 1, Blob()}, {"", 1, Blob()}})));
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_TRUE(kernels->at(0).params.empty());
}

class MalformedFatbin : public ::testing::TestWithParam<Malformed> {};
TEST_P(MalformedFatbin, IsInvalidArgumentNamingTheProblem) {
  const Blob b = GetParam().make();
  auto entries = ParseFatbin(View(b));
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(entries.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(entries.status().message(), HasSubstr(GetParam().message));
}

Blob GoodFatbin() { return BuildFatbin({{.payload = GoodCubin()}}); }

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedFatbin,
                         ::testing::Values(Malformed{"TruncatedContainerHeader",
                                                     [] {
                                                       return Blob{0x50, 0xed, 0x55, 0xba, 1};
                                                     },
                                                     "truncated container header at offset 0"},
                                           Malformed{"BadMagic",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       b[0] = 0;
                                                       return b;
                                                     },
                                                     "bad magic 0xba55ed00"},
                                           Malformed{"WrongVersion",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       PutAt<uint16_t>(b, 4, 2);
                                                       return b;
                                                     },
                                                     "container version 2"},
                                           Malformed{"HeaderSizeTooSmall",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       PutAt<uint16_t>(b, 6, 8);
                                                       return b;
                                                     },
                                                     "header size 8"},
                                           Malformed{"PayloadSizeOverflows",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       PutAt<uint64_t>(b, 8, ~uint64_t{0});
                                                       return b;
                                                     },
                                                     "claims 18446744073709551615 payload bytes"},
                                           Malformed{"TruncatedPayload",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       b.resize(b.size() - 10);
                                                       return b;
                                                     },
                                                     "payload bytes, the file has"},
                                           Malformed{"EntryHeaderTooSmall",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       PutAt<uint32_t>(b, 16 + 4, 16);
                                                       return b;
                                                     },
                                                     "header size 16, below 64"},
                                           Malformed{"EntryPayloadPastContainer",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       PutAt<uint32_t>(b, 16 + 8, 0xfffffff0u);
                                                       return b;
                                                     },
                                                     "runs past its container's end"},
                                           Malformed{"EntryHeaderTruncated",
                                                     [] {
                                                       Blob b;
                                                       Put<uint32_t>(b, 0xBA55ED50);
                                                       Put<uint16_t>(b, 1);
                                                       Put<uint16_t>(b, 16);
                                                       Put<uint64_t>(b, 20);
                                                       b.resize(b.size() + 20, 0);
                                                       return b;
                                                     },
                                                     "truncated entry header at offset 16"},
                                           Malformed{"UnknownEntryKind",
                                                     [] {
                                                       Blob b = GoodFatbin();
                                                       PutAt<uint16_t>(b, 16, 7);
                                                       return b;
                                                     },
                                                     "has kind 7"},
                                           Malformed{
                                               "CompressedSizeOverPayload",
                                               [] {
                                                 return BuildFatbin({{.payload = Blob(16, 1),
                                                                      .compressed_size = 400}});
                                               },
                                               "claims 400 compressed bytes in a 16-byte payload"},
                                           Malformed{"GarbageAfterContainer",
                                                     [] {
                                                       return Concat(GoodFatbin(), Blob{1, 2, 3});
                                                     },
                                                     "truncated container header"}),
                         CaseName);

TEST(FatbinTest, EveryTruncationIsAnErrorOrAPrefixNeverACrash) {
  const Blob good = BuildFatbin({{.arch = 90, .flags = 0x100011, .payload = GoodCubin()},
                                 {.arch = 80, .payload = GoodCubin()}});
  for (size_t n = 0; n < good.size(); ++n) {
    Blob cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto entries = ParseFatbin(View(cut));
    if (!entries.ok()) {
      EXPECT_EQ(entries.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    for (const FatbinEntry& e : *entries) (void)ReadCubinKernels(e.payload);
  }
}

TEST(ElfTest, EveryTruncationIsAnErrorNeverACrash) {
  const Blob good = GoodCubin();
  for (size_t n = 0; n < good.size(); ++n) {
    Blob cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(ReadCubinKernels(View(cut)).ok()) << "length " << n;
  }
}

}  // namespace
}  // namespace gpuops::metadata
