#pragma once
// Private to the weight checks (VerifyWeights.cpp, VerifyChannels.cpp): what the verifier learnt
// about one weight op's stored tensors, and the channel flow that follows channel counts along
// the graph as the runtime computes them.

#include "verify/ArtifactVerifier.h"
#include "verify/VerifierSupport.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace lattice::detail {

/// What the verifier learnt about one weight op's stored tensors.
struct WeightInfo {
  const ArtifactOp* op = nullptr;
  std::string key;
  std::string layout;
  bool quantized = false;
  /// Output channels and kernel rows when the stored shapes tell them.
  std::optional<std::int64_t> outChannels;
  std::optional<std::int64_t> kernelRows;
  /// Dense: the stored shape. Quantized: storage channels per row.
  std::vector<std::int64_t> denseShape;
  std::optional<std::int64_t> storageChannels;
};

/// The stored tensors of weight op `op` checked against its type, layout and packing (errors to
/// `sink`); nullopt when the op itself is malformed (the graph verifier reports that).
std::optional<WeightInfo> describeWeightOp(const ArtifactOp& op, const WeightLookup& find, DiagnosticSink& sink);

/// `'key'` with unprintable bytes escaped.
std::string weightKeyText(const std::string& key);

/// The channel count a value has at run time, as far as the artifact tells it: known, or
/// unknown but equal to the channel count of function argument `source` (a sparse input's
/// features, a dense input), or unknown.
struct ChannelCount {
  std::optional<std::int64_t> count;
  int source = -1;
};

/// Follows channel counts through one function in op order with the runtime's rules (sec. 10.4:
/// sparse.make and with_features take their features' width, convolutions and linear their
/// weight's output channels, cat sums, everything else keeps its input's) and checks each op's
/// weights against the channels its operands will have, with the runtime's messages (sec. 8 X8,
/// X14, and the runtime's checks of linear, bias and norm vectors). A value of unknown width
/// that comes from an argument gives a need of that argument instead.
class ChannelFlow {
public:
  /// `report` receives (op, message) for a mismatch; `need` (may be empty) the first
  /// requirement on each argument of unknown width.
  ChannelFlow(const ArtifactFunction& function,
              std::function<void(const ArtifactOp&, const std::string&)> report,
              std::function<void(const ArgumentChannelNeed&)> need = {});

  /// Checks `op` (not a weight op) against `weights` (weight values by SSA name) and records the
  /// channels of its results.
  void visit(const ArtifactOp& op, const std::unordered_map<std::string, WeightInfo>& weights);

private:
  ChannelCount of(const ArtifactOp& op, std::size_t operand) const;
  /// `value` must have `required` channels: a mismatch is reported as `message`, an unknown
  /// width from an argument becomes a need.
  void require(const ArtifactOp& op, const ChannelCount& value, std::int64_t required,
               const std::string& message, const std::string& weightKey);

  std::function<void(const ArtifactOp&, const std::string&)> m_report;
  std::function<void(const ArgumentChannelNeed&)> m_need;
  std::unordered_map<std::string, ChannelCount> m_channels;
  std::vector<bool> m_needed; // per argument: a need was given already
};

} // namespace lattice::detail
