// Rendering of reader and verifier diagnostics.

#include "mlir/Diagnostic.h"

namespace lattice {

std::string Diagnostic::str() const {
  std::string out = file;
  if (loc.valid()) out += ':' + std::to_string(loc.line) + ':' + std::to_string(loc.column);
  out += severity == Severity::Error ? ": error: " : ": note: ";
  out += message;
  return out;
}

std::string renderDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    out += d.str();
    out += '\n';
  }
  return out;
}

bool hasErrors(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

} // namespace lattice
