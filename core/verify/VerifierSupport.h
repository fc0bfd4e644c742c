#pragma once
// Private to the verifier: the diagnostic sink and the per-op view shared by VerifyModule.cpp,
// VerifyOpSignature.cpp, VerifyOpRules.cpp and VerifyWeights.cpp.

#include "mlir/ArtifactGraph.h"
#include "mlir/Diagnostic.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lattice::detail {

/// The largest kernel reach (kernel_size × dilation), stride, padding or tensor stride per axis
/// the verifier accepts: the range of an i32 coordinate. A larger one relates no two coordinates
/// of the ABI, and the runtime's coordinate arithmetic (`c·s + offset − p`) stays far inside 64
/// bits below it. The spec sets no bound (sec. 5 lets a stricter reader add one).
inline constexpr std::int64_t kMaxCoordinateExtent = 2147483647;

/// Where the reference consumer (`lattice-opt --lattice-verify-artifact`: MLIR's parser, the
/// module's op verifiers, then the artifact contract pass, each stopping at its first error)
/// would report a diagnostic. verifyArtifactGraph puts the one it reports first in front.
enum class ReferenceStage : unsigned char {
  Parse,    ///< MLIR's parser: SSA names defined once and before use, the types of uses
  Verifier, ///< op verifiers in op order: ODS invariants, custom verify, `func.return`
  Contract, ///< verifyArtifactContract, rules M1-M17 in rule order
  Beyond,   ///< rules only the runtime plan or execution applies (R, X, weights)
};

/// Collects diagnostics for one file, each with the reference stage current when it was added.
class DiagnosticSink {
public:
  DiagnosticSink(std::string file, std::vector<Diagnostic>& out) : m_file(std::move(file)), m_out(out) {}

  void error(SourceLoc loc, std::string message) { add(loc, Severity::Error, std::move(message)); }
  void note(SourceLoc loc, std::string message) { add(loc, Severity::Note, std::move(message)); }
  const std::string& file() const { return m_file; }

  void setStage(ReferenceStage stage) { m_stage = stage; }
  ReferenceStage stage() const { return m_stage; }
  /// The stage of the diagnostic at `index` of the output vector (the sink is its only writer
  /// from construction on).
  ReferenceStage stageOf(std::size_t index) const {
    return index >= m_base && index - m_base < m_stages.size() ? m_stages[index - m_base] : ReferenceStage::Beyond;
  }

private:
  void add(SourceLoc loc, Severity severity, std::string message) {
    m_stages.push_back(m_stage);
    m_out.push_back({m_file, loc, severity, std::move(message)});
  }

  std::string m_file;
  std::vector<Diagnostic>& m_out;
  std::size_t m_base = m_out.size();
  ReferenceStage m_stage = ReferenceStage::Beyond;
  std::vector<ReferenceStage> m_stages;
};

/// Scoped stage change of a sink.
class StageScope {
public:
  StageScope(DiagnosticSink& sink, ReferenceStage stage) : m_sink(sink), m_saved(sink.stage()) {
    sink.setStage(stage);
  }
  ~StageScope() { m_sink.setStage(m_saved); }
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;

private:
  DiagnosticSink& m_sink;
  ReferenceStage m_saved;
};

/// One lattice op under verification: its operands by schema name (optional operands are the
/// trailing ones, so the first N schema operands are the present ones) and its errors, each
/// reported once as `'lattice.X' op <message>` at the op.
class OpContext {
public:
  OpContext(const ArtifactOp& op, DiagnosticSink& sink);

  DiagnosticSink& sink() { return m_sink; }

  const ArtifactOp& op() const { return m_op; }
  /// The written type of operand `name`, or nullptr when absent (or the count is off).
  const ArtifactType* operand(std::string_view name) const;
  /// The type of result `index`, or nullptr.
  const ArtifactType* result(std::size_t index = 0) const;
  /// True when the operand count fits the schema (so operand() is meaningful).
  bool operandsResolved() const { return m_resolved; }
  /// `'lattice.X' op <message>`, once per distinct message.
  void error(const std::string& message);

  /// The attribute `name` if present and of the schema kind `kind` (ODS reports it otherwise).
  const ArtifactAttrValue* attr(std::string_view name) const;

private:
  const ArtifactOp& m_op;
  DiagnosticSink& m_sink;
  bool m_resolved = false;
  std::vector<std::string> m_reported;
};

/// True when `value` has the form ODS requires for schema attribute kind `kind`.
bool attrMatchesKind(const ArtifactAttrValue& value, SchemaAttrKind kind);

/// ODS's description of attribute kind `kind` (`32-bit float attribute`, ...).
std::string attrKindDescription(SchemaAttrKind kind);

/// `[1, 3, 1, 5, 1]`.
std::string shapeText(const std::vector<std::int64_t>& shape);

/// The ODS checks of one lattice op (VerifyOpSignature.cpp).
void verifyOpSignature(OpContext& ctx);
/// The op's custom verifier (class V, VerifyOpRules.cpp).
void verifyOpRules(OpContext& ctx);
/// The bound kMaxCoordinateExtent on the op's kernel reach, stride and padding (VerifyOpRules.cpp).
void verifyCoordinateExtents(OpContext& ctx);
/// Stride propagation and the static stride rules X10, X11, X14 (VerifyStrides.cpp), and the
/// bound kMaxCoordinateExtent on the tensor strides a forward op makes.
void verifyStrides(const ArtifactFunction& function, DiagnosticSink& sink);

} // namespace lattice::detail
