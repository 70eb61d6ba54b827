// Writes seed inputs for the fuzzers (synthetic cubins, .nv.info sections, fatbins, AMD code
// objects and offload bundles, signatures.txt) into <dir>/<target>/.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/code_object_builder.h"
#include "tests/support/cubin_builder.h"

namespace {

void Write(const std::filesystem::path& dir, const std::string& name,
           const gpuops::testing::Blob& b) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds <dir>\n");
    return 2;
  }
  using namespace gpuops::testing;  // NOLINT
  const std::filesystem::path root = argv[1];
  const Blob cubin = BuildCubin({{"gemm", {8, 8, 8, 4, 4, 4}}, {"empty", {}}, {"map", {128, 4}}});
  const Blob cubin_v2 = BuildCubin({{"big", {8, 4096, 4}}}, 2);
  Write(root / "fuzz_elf", "cubin", cubin);
  Write(root / "fuzz_elf", "cubin_v2", cubin_v2);
  Write(root / "fuzz_nvinfo", "six_params", NvInfoFor({8, 8, 8, 4, 4, 4}));
  Write(root / "fuzz_nvinfo", "v2", NvInfoFor({8, 4096, 4}, 2));
  Write(root / "fuzz_fatbin", "two_arches",
        BuildFatbin({{.kind = 2, .arch = 90, .flags = 0x100011, .payload = cubin},
                     {.kind = 2, .arch = 80, .flags = 0x11, .payload = cubin_v2},
                     {.kind = 1,
                      .arch = 90,
                      .flags = 0x8011,
                      .payload = Blob(24, 3),
                      .compressed_size = 20}}));
  const Blob code_object = BuildCodeObject(
      {{.name = "w8a16_gemm_m16", .args = ArgsFor({{"input", 8}, {"weight", 8}, {"m", 4}})},
       {.name = "empty", .args = ArgsFor({})}});
  Write(root / "fuzz_amd", "code_object", code_object);
  Write(root / "fuzz_amd", "bundle",
        BuildOffloadBundle({{"host-x86_64-unknown-linux-gnu", Blob()},
                            {"hipv4-amdgcn-amd-amdhsa--gfx90a", code_object}}));
  Write(root / "fuzz_amd", "metadata", MetadataFor({{.name = "k", .args = ArgsFor({{"x", 8}})}}));
  const std::string text = "# seed\narch sm_90a\nk sm_80,sm_90a a:0:8 n:8:4\nz - -\n";
  Write(root / "fuzz_signatures", "table", Blob(text.begin(), text.end()));
  return 0;
}
