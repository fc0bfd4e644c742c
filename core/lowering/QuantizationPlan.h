#pragma once
/// \file A quantization plan: how each conv and linear weight of a model is stored. The artifact
/// format declares packing per `lattice.weight` (validation spec §2 R14, §8 X2–X5), so each
/// layer may be dense, int8 or int4 with its own group size and scale dtype. A plan names
/// layers by module path (the `call_module` target `lattice-cli trace` prints, `stem.0`), exactly
/// or with glob patterns (`stem.*`, `decoders.?.fuse.*`), and has a default for every layer it
/// does not name. A uniform plan lowers to the bytes `--quantize` gives.
///
/// The file (`lattice-cli lower --quantize-plan PLAN.json`, written by `lattice-cli quant-plan`):
/// \code
///   {
///     "format": "lattice-quantization-plan", "version": 1,
///     "default": "int8",                                   // or {"kind": "int4", "group_size": 64}
///     "layers": {
///       "stem.0": "dense",
///       "encoders.*": {"kind": "int4", "group_size": 32, "scale_dtype": "f16"},
///       "classifier": "int8"
///     }
///   }
/// \endcode
/// A format is "dense", "int8", "int4", or an object {kind, group_size (32, 64 or 128, the
/// sizes mlx-lattice accepts; default 32), scale_dtype ("f16" or "f32"; default "f16")}. An exact
/// name wins over patterns; among patterns the last one in the file that matches wins.

#include "support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lattice {

/// How one weight is stored.
struct WeightFormat {
  /// 0: dense (as the model holds it); 4 or 8: affine group quantization.
  int bits = 0;
  /// 32, 64 or 128 (quantized only).
  std::int64_t groupSize = 32;
  /// "f16" or "f32" (quantized only).
  std::string scaleDtype = "f16";

  bool dense() const { return bits == 0; }
  static WeightFormat denseFormat() { return {}; }
  static WeightFormat quantized(int bits, std::int64_t groupSize = 32, std::string scaleDtype = "f16") {
    return {bits, groupSize, std::move(scaleDtype)};
  }
  /// "dense", "int8", "int4"; a non-default group size or scale dtype is appended:
  /// "int4/g64", "int8/g32/f32". parseWeightFormat reads it back.
  std::string name() const;
  /// "dense", "int4" or "int8".
  std::string kind() const { return bits == 0 ? "dense" : "int" + std::to_string(bits); }
  bool operator==(const WeightFormat& o) const {
    return bits == o.bits && (bits == 0 || (groupSize == o.groupSize && scaleDtype == o.scaleDtype));
  }
  bool operator!=(const WeightFormat& o) const { return !(*this == o); }
};

/// Reads WeightFormat::name()'s form ("int4", "int4/g64", "int8/g128/f32", "dense"). Errors name
/// the text and what is accepted.
Expected<WeightFormat> parseWeightFormat(std::string_view text);

/// Bytes a weight of logical shape `shape` (rank 2 (C_out, C_in), or rank 5
/// (C_out, Kx, Ky, Kz, C_in) as the artifact stores convs) takes in `format`: dense is
/// numel · `denseElementBytes`; quantized is the packed codes plus scales and biases exactly as
/// quantizeAffine stores them (C_in padded to the group size).
std::uint64_t weightBytes(const std::vector<std::int64_t>& shape, const WeightFormat& format,
                          std::uint64_t denseElementBytes = 4);

/// `*` matches any run of characters (dots included), `?` one character; everything else
/// itself.
bool globMatch(std::string_view pattern, std::string_view text);

class QuantizationPlan {
public:
  struct Entry {
    /// A module path or a glob pattern.
    std::string pattern;
    WeightFormat format;
    bool glob() const { return pattern.find_first_of("*?") != std::string::npos; }
  };

  /// Every layer the entries do not name.
  WeightFormat defaultFormat;
  /// In file order.
  std::vector<Entry> entries;

  /// The plan `--quantize BITS --group-size G --scale-dtype S` stands for (bits 0: dense).
  static QuantizationPlan uniform(WeightFormat format);
  /// Parses a plan file's text; errors read `FILE: ...` and name the entry (`layers."stem.0"`)
  /// and what is wrong with it (an unknown kind, a group size other than 32/64/128, an unknown
  /// key, JSON syntax with its line).
  static Expected<QuantizationPlan> parse(const std::string& text, const std::string& fileName);
  /// Reads and parses a file ("FILE: cannot read file: reason" when it cannot be read).
  static Expected<QuantizationPlan> readFile(const std::string& path);
  /// The file form (default first, then the entries in order), two-space indented, with a
  /// trailing newline; parse(toJson()) gives this plan back.
  std::string toJson() const;

  /// The index of the entry that decides `layer` (an exact name first, else the last matching
  /// pattern), or -1 when the default does.
  int entryFor(std::string_view layer) const;
  /// The format of `layer`.
  const WeightFormat& formatFor(std::string_view layer) const;
  /// True when every layer gets the default (no entries).
  bool isUniform() const { return entries.empty(); }
};

} // namespace lattice
