// The weight half of the artifact diff: storage keys of both sides merged in key order, stored
// forms compared as text, and values compared in the logical dense layout (quantized weights
// dequantized; a quantized side with unknown input channels borrows them from the other side).
// Byte-identical stored tensors are equal without being decoded, so diffing an artifact with a
// copy of itself reads each weight once (a memcmp). It does not report tensors of
// weights.safetensors that no weight op names (the verifier does).

#include "diff/DiffInternal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lattice {
namespace diff_detail {
namespace {

bool storedBytesEqual(const WeightEntry& a, const WeightEntry& b) {
  if (a.quantized != b.quantized) return false;
  if (!a.quantized) return a.dense && b.dense && *a.dense == *b.dense;
  return a.codes && b.codes && *a.codes == *b.codes && *a.scales == *b.scales && *a.biases == *b.biases;
}

WeightValueStats valueStats(const std::vector<float>& a, const std::vector<float>& b, double tolerance) {
  WeightValueStats s;
  s.elements = a.size();
  constexpr double kTiny = 1e-12;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = a[i], y = b[i];
    double delta = 0.0;
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) && std::isnan(y)) continue;
      delta = inf;
    } else if (x != y) {
      delta = std::fabs(y - x);
    }
    if (delta > tolerance) ++s.changedElements;
    s.maxAbsDelta = std::max(s.maxAbsDelta, delta);
    s.maxRelDelta = std::max(s.maxRelDelta, delta == 0.0 ? 0.0 : delta / std::max(std::fabs(x), kTiny));
  }
  return s;
}

void addNote(WeightDiff& d, const std::string& note) {
  if (note.empty()) return;
  if (!d.note.empty()) d.note += "; ";
  d.note += note;
}

WeightDiff onlyOneSide(const WeightEntry& e, bool inA) {
  WeightDiff d;
  d.key = e.key;
  d.status = inA ? DiffStatus::Removed : DiffStatus::Added;
  (inA ? d.formA : d.formB) = e.form;
  (inA ? d.shapeA : d.shapeB) = logicalShape(e);
  d.note = e.problem;
  return d;
}

WeightDiff compareEntries(const WeightEntry& ea, const WeightEntry& eb, const DiffOptions& options) {
  WeightDiff d;
  d.key = ea.key;
  d.formA = ea.form;
  d.formB = eb.form;
  d.formChanged = ea.form != eb.form;
  // A side that does not know its input channels takes them from the other side.
  d.shapeA = logicalShape(ea, eb.inChannels);
  d.shapeB = logicalShape(eb, ea.inChannels);
  bool changed = d.formChanged;

  if (!ea.problem.empty() || !eb.problem.empty()) {
    if (ea.problem == eb.problem) {
      addNote(d, "values not compared: " + ea.problem);
    } else {
      addNote(d, ea.problem.empty() ? std::string() : "A: " + ea.problem);
      addNote(d, eb.problem.empty() ? std::string() : "B: " + eb.problem);
      changed = true;
    }
    d.status = changed ? DiffStatus::Changed : DiffStatus::Unchanged;
    return d;
  }
  if (d.shapeA != d.shapeB) {
    changed = true;
    addNote(d, "logical shape differs");
  }
  if (storedBytesEqual(ea, eb)) {
    if (options.compareValues) {
      WeightValueStats same;
      same.elements = static_cast<std::uint64_t>(std::max<std::int64_t>(0, shapeNumel(d.shapeA)));
      d.values = same;
    }
  } else if (!options.compareValues) {
    if (!d.formChanged) addNote(d, "stored bytes differ (values not compared)");
    changed = true;
  } else {
    Expected<LogicalWeight> la = logicalWeight(ea, eb.inChannels);
    Expected<LogicalWeight> lb = logicalWeight(eb, ea.inChannels);
    changed = true; // the bytes differ: something changed even when the values cannot be read
    if (!la || !lb) {
      addNote(d, !la ? "A: " + la.message() : std::string());
      addNote(d, !lb ? "B: " + lb.message() : std::string());
    } else if (la->values.size() != lb->values.size()) {
      addNote(d, "element counts differ (" + std::to_string(la->values.size()) + " vs " +
                     std::to_string(lb->values.size()) + ")");
    } else {
      d.values = valueStats(la->values, lb->values, options.tolerance);
      addNote(d, la->note.empty() ? lb->note : la->note);
      // Equal values in a different stored form are a form change only.
      changed = d.formChanged || d.shapeA != d.shapeB || d.values->changedElements > 0;
    }
  }
  d.status = changed ? DiffStatus::Changed : DiffStatus::Unchanged;
  return d;
}

} // namespace

std::vector<WeightDiff> diffWeights(const LoadedArtifact& a, const LoadedArtifact& b,
                                    const DiffOptions& options) {
  const WeightCatalog ca(a), cb(b);
  const std::vector<WeightEntry>& ea = ca.entries();
  const std::vector<WeightEntry>& eb = cb.entries();
  std::vector<WeightDiff> out;
  out.reserve(std::max(ea.size(), eb.size()));
  std::size_t i = 0, j = 0;
  while (i < ea.size() || j < eb.size()) {
    if (j == eb.size() || (i < ea.size() && ea[i].key < eb[j].key)) {
      out.push_back(onlyOneSide(ea[i++], true));
    } else if (i == ea.size() || eb[j].key < ea[i].key) {
      out.push_back(onlyOneSide(eb[j++], false));
    } else {
      out.push_back(compareEntries(ea[i++], eb[j++], options));
    }
  }
  return out;
}

} // namespace diff_detail

Expected<std::vector<float>> weightValues(const LoadedArtifact& artifact, const std::string& key) {
  const diff_detail::WeightCatalog catalog(artifact);
  const diff_detail::WeightEntry* e = catalog.find(key);
  if (!e) return makeError("weight '" + key + "' is not in '" + artifact.path + "'");
  Expected<diff_detail::LogicalWeight> w = diff_detail::logicalWeight(*e);
  if (!w) return w.error();
  return std::move(w->values);
}

Expected<std::vector<float>> weightDeltas(const LoadedArtifact& a, const LoadedArtifact& b,
                                          const std::string& key) {
  const diff_detail::WeightCatalog ca(a), cb(b);
  const diff_detail::WeightEntry* ea = ca.find(key);
  const diff_detail::WeightEntry* eb = cb.find(key);
  if (!ea) return makeError("weight '" + key + "' is not in '" + a.path + "'");
  if (!eb) return makeError("weight '" + key + "' is not in '" + b.path + "'");
  Expected<diff_detail::LogicalWeight> la = diff_detail::logicalWeight(*ea, eb->inChannels);
  if (!la) return la.error();
  Expected<diff_detail::LogicalWeight> lb = diff_detail::logicalWeight(*eb, ea->inChannels);
  if (!lb) return lb.error();
  if (la->values.size() != lb->values.size())
    return makeError("weight '" + key + "': " + std::to_string(la->values.size()) + " logical elements in '" +
                     a.path + "', " + std::to_string(lb->values.size()) + " in '" + b.path + "'");
  std::vector<float> delta(la->values.size());
  for (std::size_t i = 0; i < delta.size(); ++i)
    delta[i] = lb->values[i] - la->values[i];
  return delta;
}

} // namespace lattice
