// `gpuops perf --shapes sweep`: the weight shapes (N, K) of open models of several families and
// sizes, each projection of a decoder layer and the vocabulary head with its real N, times the
// batch sizes a serving engine sees (decode through continuous batching to prefill), plus ragged
// shapes (N or K not a multiple of 8). From each model's config.json: qkv N = (heads + 2 ·
// kv_heads) · head_dim, K = hidden; o N = hidden, K = heads · head_dim; gate_up N = 2 ·
// intermediate, K = hidden; down N = hidden, K = intermediate; lm_head N = vocab, K = hidden.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace gpuops::tools {

struct SweepShape {
  std::string_view model;
  std::string_view layer;
  uint32_t n;
  uint32_t k;
};

inline constexpr SweepShape kSweepShapes[] = {
    // Qwen2.5-0.5B: hidden 896, 14 heads / 2 kv of 64, intermediate 4864, vocab 151936.
    {"qwen2.5-0.5b", "qkv", 1152, 896},
    {"qwen2.5-0.5b", "o", 896, 896},
    {"qwen2.5-0.5b", "gate_up", 9728, 896},
    {"qwen2.5-0.5b", "down", 896, 4864},
    {"qwen2.5-0.5b", "lm_head", 151936, 896},
    // Llama-3.2-1B: hidden 2048, 32 heads / 8 kv of 64, intermediate 8192, vocab 128256.
    {"llama3.2-1b", "qkv", 3072, 2048},
    {"llama3.2-1b", "o", 2048, 2048},
    {"llama3.2-1b", "gate_up", 16384, 2048},
    {"llama3.2-1b", "down", 2048, 8192},
    {"llama3.2-1b", "lm_head", 128256, 2048},
    // Phi-3-mini (3.8B): hidden 3072, 32 heads of 96 (no GQA), intermediate 8192, vocab 32064.
    {"phi3-mini", "qkv", 9216, 3072},
    {"phi3-mini", "o", 3072, 3072},
    {"phi3-mini", "gate_up", 16384, 3072},
    {"phi3-mini", "down", 3072, 8192},
    {"phi3-mini", "lm_head", 32064, 3072},
    // Qwen2.5-7B: hidden 3584, 28 heads / 4 kv of 128, intermediate 18944, vocab 152064.
    {"qwen2.5-7b", "qkv", 4608, 3584},
    {"qwen2.5-7b", "o", 3584, 3584},
    {"qwen2.5-7b", "gate_up", 37888, 3584},
    {"qwen2.5-7b", "down", 3584, 18944},
    {"qwen2.5-7b", "lm_head", 152064, 3584},
    // Llama-3.1-8B: hidden 4096, 32 heads / 8 kv of 128, intermediate 14336, vocab 128256.
    {"llama3.1-8b", "qkv", 6144, 4096},
    {"llama3.1-8b", "o", 4096, 4096},
    {"llama3.1-8b", "gate_up", 28672, 4096},
    {"llama3.1-8b", "down", 4096, 14336},
    {"llama3.1-8b", "lm_head", 128256, 4096},
    // Gemma-2-9B: hidden 3584, 16 heads / 8 kv of 256, intermediate 14336, vocab 256000.
    {"gemma2-9b", "qkv", 8192, 3584},
    {"gemma2-9b", "o", 3584, 4096},
    {"gemma2-9b", "gate_up", 28672, 3584},
    {"gemma2-9b", "down", 3584, 14336},
    {"gemma2-9b", "lm_head", 256000, 3584},
    // Mistral-Nemo-12B: hidden 5120, 32 heads / 8 kv of 128, intermediate 14336, vocab 131072.
    {"mistral-nemo-12b", "qkv", 6144, 5120},
    {"mistral-nemo-12b", "o", 5120, 4096},
    {"mistral-nemo-12b", "gate_up", 28672, 5120},
    {"mistral-nemo-12b", "down", 5120, 14336},
    {"mistral-nemo-12b", "lm_head", 131072, 5120},
    // Qwen2.5-32B: hidden 5120, 40 heads / 8 kv of 128, intermediate 27648, vocab 152064.
    {"qwen2.5-32b", "qkv", 7168, 5120},
    {"qwen2.5-32b", "o", 5120, 5120},
    {"qwen2.5-32b", "gate_up", 55296, 5120},
    {"qwen2.5-32b", "down", 5120, 27648},
    {"qwen2.5-32b", "lm_head", 152064, 5120},
    // Llama-3.1-70B: hidden 8192, 64 heads / 8 kv of 128, intermediate 28672, vocab 128256.
    {"llama3.1-70b", "qkv", 10240, 8192},
    {"llama3.1-70b", "o", 8192, 8192},
    {"llama3.1-70b", "gate_up", 57344, 8192},
    {"llama3.1-70b", "down", 8192, 28672},
    {"llama3.1-70b", "lm_head", 128256, 8192},
    // Ragged: N or K (or both) not a multiple of 8.
    {"ragged", "n+1", 4097, 4096},
    {"ragged", "k+3", 4096, 4099},
    {"ragged", "nk+5", 1005, 2053},
    {"ragged", "k+7", 14336, 4103},
    {"ragged", "vocab-odd", 151937, 4096},
    {"ragged", "n+6", 3078, 1024},
};

// The batch sizes of the sweep: decode, continuous batching, prefill.
inline constexpr std::array<uint32_t, 23> kSweepMs = {1,   2,   4,   8,   12,   16,   24,   32,
                                                      48,  64,  96,  128, 192,  256,  384,  512,
                                                      768, 1024, 1536, 2048, 3072, 4096, 8192};

}  // namespace gpuops::tools
