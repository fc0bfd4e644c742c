// The quantization planner: one dense reference run, then every measurement a rerun of the
// ops downstream of the weights it changes (Runtime::rerunWith), the changed weights packed with
// the bytes the mixed artifact would store.

#include "quant/QuantPlanner.h"

#include "exec/LoweredRun.h"
#include "lowering/WeightPacking.h"
#include "runtime/Compare.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <queue>
#include <sstream>

namespace lattice {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string describeInputs(const RunInputSpec& spec) {
  switch (spec.source) {
  case RunInputSpec::Source::Random: {
    std::string text = "random: " + std::to_string(spec.random.points) + " points, seed " + std::to_string(spec.random.seed);
    if (spec.random.batchSize > 1) text += ", " + std::to_string(spec.random.batchSize) + " batches";
    return text;
  }
  case RunInputSpec::Source::File:
    return spec.file;
  case RunInputSpec::Source::Recorded:
    return "recorded inputs (the archive's)";
  }
  return "";
}

DType scaleDType(const WeightFormat& f) { return f.scaleDtype == "f32" ? DType::F32 : DType::F16; }

std::string bytesText(std::uint64_t bytes) {
  char buffer[32];
  if (bytes >= 1024ull * 1024ull)
    std::snprintf(buffer, sizeof buffer, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  else if (bytes >= 1024ull)
    std::snprintf(buffer, sizeof buffer, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else
    std::snprintf(buffer, sizeof buffer, "%llu B", static_cast<unsigned long long>(bytes));
  return buffer;
}

std::string sci(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

} // namespace

// ---- QuantSensitivity ----

std::uint64_t QuantSensitivity::bytesOf(const std::vector<WeightFormat>& formats) const {
  std::uint64_t total = otherBytes;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const WeightFormat& f = i < formats.size() ? formats[i] : WeightFormat::denseFormat();
    std::uint64_t bytes = layers[i].denseBytes;
    if (!f.dense()) {
      bytes = 0;
      for (const LayerCandidate& c : perLayer[i])
        if (c.format == f) bytes = c.bytes;
      if (bytes == 0) bytes = weightBytes(layers[i].shape, f);
    }
    total += bytes;
  }
  return total;
}

std::vector<int> QuantSensitivity::ranking() const {
  std::vector<int> order(layers.size());
  std::vector<double> worst(layers.size(), -1.0);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    order[i] = static_cast<int>(i);
    for (const LayerCandidate& c : perLayer[i])
      if (c.measured) worst[i] = std::max(worst[i], c.error.relL2);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (worst[a] != worst[b]) return worst[a] > worst[b];
    return layers[a].name < layers[b].name;
  });
  return order;
}

// ---- QuantPlanner ----

struct QuantPlanner::Impl {
  QuantPlannerOptions options;
  std::vector<QuantLayer> layers;
  std::vector<int> weightOps; // per layer: its weight op in the plan
  std::uint64_t otherBytes = 0;
  std::string inputsDescription;
  std::optional<runtime::Runtime> runtime;
  std::vector<runtime::RuntimeValue> reference; // the dense run's outputs
  double denseRunMs = 0.0;

  // Packed weights by (layer, format name): each is packed once, for the analysis and every plan.
  std::map<std::pair<std::size_t, std::string>, runtime::WeightRef> packedCache;

  // The weight op of layer `i` stored in `format`, as the runtime reads it from a mixed artifact.
  Expected<runtime::WeightRef> packed(std::size_t i, const WeightFormat& format) {
    const auto key = std::make_pair(i, format.name());
    if (auto hit = packedCache.find(key); hit != packedCache.end()) return hit->second;
    Expected<runtime::WeightRef> w = pack(i, format);
    if (w) packedCache.emplace(key, *w);
    return w;
  }

  Expected<runtime::WeightRef> pack(std::size_t i, const WeightFormat& format) const {
    const runtime::RuntimePlan& plan = runtime->plan();
    const int slot = plan.ops[static_cast<std::size_t>(weightOps[i])].results.front();
    const auto* dense = std::get_if<runtime::WeightRef>(&runtime->value(slot));
    if (!dense) return makeError("the weight of layer '" + layers[i].name + "' has no value");
    runtime::WeightRef w = *dense;
    if (format.dense()) return w;
    Expected<QuantizedWeight> q =
        quantizeAffine(w.dense, format.bits, static_cast<int>(format.groupSize), scaleDType(format));
    if (!q) return makeError("layer '" + layers[i].name + "': " + q.message());
    w.packing = PackingAttr::affine(format.bits, format.groupSize, format.scaleDtype);
    w.dense = TensorData();
    w.codes = std::move(q->weight);
    w.scales = std::move(q->scales);
    w.biases = std::move(q->biases);
    return w;
  }

  // Reruns with `overrides` and compares the outputs with the reference.
  Expected<MeasuredError> measureOverrides(const std::vector<runtime::WeightRef>& overrides,
                                           const std::atomic<bool>* cancel, std::int64_t* opsRun) {
    if (overrides.empty()) return MeasuredError{};
    Expected<runtime::Rerun> rerun = runtime->rerunWith(overrides, cancel);
    if (!rerun) return rerun.error();
    if (opsRun) *opsRun += rerun->opsRun;
    MeasuredError error;
    for (std::size_t o = 0; o < reference.size(); ++o) {
      std::string problem;
      const runtime::Divergence d = runtime::compareValues(rerun->outputs[o], reference[o], &problem);
      if (!problem.empty()) {
        error.relL2 = std::numeric_limits<double>::infinity();
        error.pearson = 0.0;
        continue;
      }
      error.relL2 = std::max(error.relL2, std::isnan(d.relL2) ? std::numeric_limits<double>::infinity() : d.relL2);
      error.pearson = std::min(error.pearson, d.pearson);
    }
    return error;
  }
};

QuantPlanner::QuantPlanner(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
QuantPlanner::~QuantPlanner() = default;

const std::vector<QuantLayer>& QuantPlanner::layers() const { return m_impl->layers; }
const QuantPlannerOptions& QuantPlanner::options() const { return m_impl->options; }

Expected<std::unique_ptr<QuantPlanner>> QuantPlanner::create(const Model& model, const QuantPlannerOptions& options,
                                                             const ArchiveRecordings* recordings,
                                                             const std::atomic<bool>* cancel) {
  for (const WeightFormat& f : options.candidates)
    if (f.dense()) return makeError("a candidate format must be int4 or int8, not dense");
  if (options.candidates.empty()) return makeError("no candidate formats");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  // The reference is the dense lowering, whatever the archive or the options say.
  ExportOptions exportOptions = options.exportOptions;
  exportOptions.quantizeBits.reset();
  exportOptions.keepDense.clear();
  exportOptions.quantizationPlan =
      std::make_shared<const QuantizationPlan>(QuantizationPlan::uniform(WeightFormat::denseFormat()));
  Expected<PreparedLowering> lowering = prepareLowering(model, exportOptions);
  if (!lowering) return lowering.error();
  if (Status s = finishLowering(*lowering, cancel); !s) return s.error();
  Expected<LoweredRun> lowered = runLowering(*lowering, "model");
  if (!lowered) return lowered.error();
  impl->runtime.emplace(std::move(lowered->runtime));
  const runtime::RuntimePlan& plan = impl->runtime->plan();

  std::map<std::string, int> weightOpByKey;
  for (std::size_t i = 0; i < plan.ops.size(); ++i)
    if (plan.ops[i].kind == OpKind::Weight) weightOpByKey.emplace(plan.ops[i].text("storage_key"), static_cast<int>(i));
  std::uint64_t allBytes = 0, layerBytes = 0;
  for (const NamedTensor& t : lowering->builder->weights()) allBytes += t.tensor.byteSize();
  for (const QuantizableWeight& w : lowering->builder->quantizableWeights()) {
    const auto op = weightOpByKey.find(w.storageKey);
    if (op == weightOpByKey.end()) return makeError("no weight op stores '" + w.storageKey + "'");
    QuantLayer layer;
    layer.name = w.layer;
    layer.node = w.owner;
    layer.storageKey = w.storageKey;
    layer.family = w.family;
    layer.shape = w.shape;
    layer.parameters = 1;
    for (std::int64_t d : w.shape) layer.parameters *= d;
    layer.denseBytes = weightBytes(w.shape, WeightFormat::denseFormat(), dtypeSize(w.dtype));
    layer.packable = w.packable;
    layerBytes += layer.denseBytes;
    impl->layers.push_back(std::move(layer));
    impl->weightOps.push_back(op->second);
  }
  impl->otherBytes = allBytes >= layerBytes ? allBytes - layerBytes : 0;

  impl->inputsDescription = describeInputs(options.inputs);
  Expected<RunInputs> inputs = makeRunInputs(options.inputs, plan, recordings);
  if (!inputs) return inputs.error();
  runtime::RuntimeOptions runOptions;
  runOptions.numerics = options.numerics;
  runOptions.keepValues = true;
  const Clock::time_point start = Clock::now();
  if (Status s = impl->runtime->start(inputs->bound, runOptions); !s) return s.error();
  while (!impl->runtime->finished()) {
    if (cancel && cancel->load()) return makeError("cancelled", ErrorCode::Cancelled);
    if (Status s = impl->runtime->step(); !s) return s.error();
  }
  impl->denseRunMs = msSince(start);
  for (const runtime::PlanOutput& o : plan.outputs) impl->reference.push_back(impl->runtime->value(o.slot));
  return std::unique_ptr<QuantPlanner>(new QuantPlanner(std::move(impl)));
}

Expected<QuantSensitivity> QuantPlanner::analyze(const std::function<void(int, int)>& progress,
                                                 const std::atomic<bool>* cancel) {
  Impl& d = *m_impl;
  QuantSensitivity s;
  s.inputsDescription = d.inputsDescription;
  s.randomInputs = d.options.inputs.source == RunInputSpec::Source::Random;
  s.candidates = d.options.candidates;
  s.layers = d.layers;
  s.otherBytes = d.otherBytes;
  s.denseRunMs = d.denseRunMs;
  s.opsPerRun = static_cast<std::int64_t>(d.runtime->plan().ops.size());
  int total = 0;
  for (const QuantLayer& layer : d.layers)
    if (layer.packable) total += static_cast<int>(s.candidates.size());
  int done = 0;
  const Clock::time_point start = Clock::now();
  for (std::size_t i = 0; i < d.layers.size(); ++i) {
    std::vector<LayerCandidate> row;
    for (const WeightFormat& f : s.candidates) {
      LayerCandidate c;
      c.format = f;
      c.bytes = weightBytes(d.layers[i].shape, f);
      if (d.layers[i].packable) {
        if (cancel && cancel->load()) return makeError("cancelled", ErrorCode::Cancelled);
        Expected<runtime::WeightRef> w = d.packed(i, f);
        if (!w) return w.error();
        Expected<MeasuredError> e = d.measureOverrides({*w}, cancel, &s.opsRerun);
        if (!e) return e.error();
        c.error = *e;
        c.measured = true;
        ++done;
        if (progress) progress(done, total);
      }
      row.push_back(std::move(c));
    }
    s.perLayer.push_back(std::move(row));
  }
  s.analysisMs = msSince(start);
  return s;
}

Expected<PlanMeasurement> QuantPlanner::measure(const std::vector<WeightFormat>& formats,
                                                const std::atomic<bool>* cancel) {
  Impl& d = *m_impl;
  if (formats.size() != d.layers.size())
    return makeError("a plan gives " + std::to_string(formats.size()) + " formats for " +
                     std::to_string(d.layers.size()) + " layers");
  PlanMeasurement m;
  m.formats = formats;
  m.bytes = d.otherBytes;
  std::vector<runtime::WeightRef> overrides;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    m.bytes += formats[i].dense() ? d.layers[i].denseBytes : weightBytes(d.layers[i].shape, formats[i]);
    if (formats[i].dense()) continue;
    if (!d.layers[i].packable)
      return makeError("layer '" + d.layers[i].name + "' stays dense: the reference does not pack its weights");
    Expected<runtime::WeightRef> w = d.packed(i, formats[i]);
    if (!w) return w.error();
    overrides.push_back(std::move(*w));
  }
  Expected<MeasuredError> e = d.measureOverrides(overrides, cancel, nullptr);
  if (!e) return e.error();
  m.error = *e;
  return m;
}

Expected<PlanSearch> QuantPlanner::search(const QuantSensitivity& s, const PlanBudget& budget,
                                          const std::atomic<bool>* cancel) {
  const std::size_t n = s.layers.size();
  // Per layer, its useful formats from dense down: each smaller and (measured) less accurate
  // than the one before; a candidate both larger and worse than another is never taken.
  struct Step {
    int candidate;
    std::uint64_t bytes;
    double err2;
  };
  std::vector<std::vector<Step>> ladders(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<Step> options;
    for (std::size_t c = 0; c < s.perLayer[i].size(); ++c) {
      const LayerCandidate& lc = s.perLayer[i][c];
      if (!lc.measured || lc.bytes >= s.layers[i].denseBytes || !std::isfinite(lc.error.relL2)) continue;
      options.push_back({static_cast<int>(c), lc.bytes, lc.error.relL2 * lc.error.relL2});
    }
    std::sort(options.begin(), options.end(), [](const Step& a, const Step& b) {
      return a.bytes != b.bytes ? a.bytes > b.bytes : a.err2 < b.err2;
    });
    for (const Step& o : options) {
      // A smaller option at most as bad as a larger one makes the larger one useless.
      while (!ladders[i].empty() && ladders[i].back().err2 >= o.err2) ladders[i].pop_back();
      ladders[i].push_back(o);
    }
  }
  // The moves in the order of bytes saved per unit of squared error added (errors of different
  // layers add roughly in quadrature), each layer down its own ladder.
  struct Move {
    double ratio;
    std::size_t layer;
    std::size_t rung;
    bool operator<(const Move& o) const { return ratio < o.ratio; }
  };
  const auto moveOf = [&](std::size_t i, std::size_t rung) {
    const std::uint64_t fromBytes = rung == 0 ? s.layers[i].denseBytes : ladders[i][rung - 1].bytes;
    const double fromErr = rung == 0 ? 0.0 : ladders[i][rung - 1].err2;
    const double saved = static_cast<double>(fromBytes - ladders[i][rung].bytes);
    const double added = std::max(ladders[i][rung].err2 - fromErr, 1e-30);
    return Move{saved / added, i, rung};
  };
  std::priority_queue<Move> queue;
  for (std::size_t i = 0; i < n; ++i)
    if (!ladders[i].empty()) queue.push(moveOf(i, 0));
  std::vector<std::vector<WeightFormat>> sequence{std::vector<WeightFormat>(n)};
  std::vector<double> estimate{0.0};
  while (!queue.empty()) {
    const Move m = queue.top();
    queue.pop();
    std::vector<WeightFormat> next = sequence.back();
    next[m.layer] = s.candidates[static_cast<std::size_t>(ladders[m.layer][m.rung].candidate)];
    const double before = m.rung == 0 ? 0.0 : ladders[m.layer][m.rung - 1].err2;
    estimate.push_back(estimate.back() + ladders[m.layer][m.rung].err2 - before);
    sequence.push_back(std::move(next));
    if (m.rung + 1 < ladders[m.layer].size()) queue.push(moveOf(m.layer, m.rung + 1));
  }

  PlanSearch result;
  result.budget = budget;
  std::map<std::size_t, int> measuredAt; // sequence index → visited index
  const auto visit = [&](std::size_t k) -> Expected<const PlanMeasurement*> {
    if (auto it = measuredAt.find(k); it != measuredAt.end()) return &result.visited[static_cast<std::size_t>(it->second)];
    Expected<PlanMeasurement> m = measure(sequence[k], cancel);
    if (!m) return m.error();
    measuredAt.emplace(k, static_cast<int>(result.visited.size()));
    result.visited.push_back(std::move(*m));
    return &result.visited.back();
  };
  const std::size_t last = sequence.size() - 1;
  if (Expected<const PlanMeasurement*> dense = visit(0); !dense) return dense.error();

  std::size_t chosen = 0;
  if (budget.kind == PlanBudget::Kind::RelativeL2) {
    // Bisection for the longest prefix whose measured error is within the budget, starting from
    // the estimate's guess.
    std::size_t good = 0, bad = last + 1;
    Expected<const PlanMeasurement*> all = visit(last);
    if (!all) return all.error();
    if ((*all)->error.relL2 <= budget.relL2) {
      good = last;
    } else {
      bad = last;
      std::size_t guess = 0;
      while (guess + 1 < last && std::sqrt(estimate[guess + 1]) <= budget.relL2) ++guess;
      if (guess > 0) {
        Expected<const PlanMeasurement*> g = visit(guess);
        if (!g) return g.error();
        ((*g)->error.relL2 <= budget.relL2 ? good : bad) = guess;
      }
      while (bad - good > 1) {
        const std::size_t mid = good + (bad - good) / 2;
        Expected<const PlanMeasurement*> m = visit(mid);
        if (!m) return m.error();
        ((*m)->error.relL2 <= budget.relL2 ? good : bad) = mid;
      }
    }
    chosen = good;
    result.met = true;
  } else {
    std::size_t k = 0;
    while (k < last && s.bytesOf(sequence[k]) > budget.bytes) ++k;
    chosen = k;
    result.met = s.bytesOf(sequence[k]) <= budget.bytes;
  }
  // The uniform plans, to compare with.
  for (const WeightFormat& f : s.candidates) {
    std::vector<WeightFormat> all(n);
    for (std::size_t i = 0; i < n; ++i)
      if (s.layers[i].packable) all[i] = f;
    Expected<PlanMeasurement> m = measure(all, cancel);
    if (!m) return m.error();
    result.uniform.push_back(*m);
    result.visited.push_back(std::move(*m));
  }
  // A few more points along the way for the front.
  for (std::size_t q = 1; q < 4; ++q)
    if (Expected<const PlanMeasurement*> m = visit(last * q / 4); !m) return m.error();
  Expected<const PlanMeasurement*> picked = visit(chosen);
  if (!picked) return picked.error();
  result.chosen = **picked;

  std::vector<int> order(result.visited.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const PlanMeasurement &pa = result.visited[static_cast<std::size_t>(a)], &pb = result.visited[static_cast<std::size_t>(b)];
    return pa.bytes != pb.bytes ? pa.bytes < pb.bytes : pa.error.relL2 < pb.error.relL2;
  });
  double best = std::numeric_limits<double>::infinity();
  for (int i : order) {
    const double e = result.visited[static_cast<std::size_t>(i)].error.relL2;
    if (e < best) {
      result.pareto.push_back(i);
      best = e;
    }
  }
  return result;
}

QuantizationPlan QuantPlanner::toPlan(const std::vector<WeightFormat>& formats) const {
  QuantizationPlan plan = QuantizationPlan::uniform(WeightFormat::denseFormat());
  for (std::size_t i = 0; i < m_impl->layers.size(); ++i)
    plan.entries.push_back({m_impl->layers[i].name, i < formats.size() ? formats[i] : WeightFormat::denseFormat()});
  return plan;
}

// ---- reports ----

nlohmann::json quantReportToJson(const QuantSensitivity& s, const PlanSearch* search) {
  nlohmann::json j;
  j["inputs"] = {{"description", s.inputsDescription}, {"random", s.randomInputs}};
  nlohmann::json candidates = nlohmann::json::array();
  for (const WeightFormat& f : s.candidates) candidates.push_back(f.name());
  j["candidates"] = candidates;
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t i = 0; i < s.layers.size(); ++i) {
    const QuantLayer& l = s.layers[i];
    nlohmann::json row = {{"name", l.name},           {"node", l.node},
                          {"family", l.family},       {"shape", l.shape},
                          {"parameters", l.parameters}, {"dense_bytes", l.denseBytes},
                          {"packable", l.packable}};
    nlohmann::json cs = nlohmann::json::array();
    for (const LayerCandidate& c : s.perLayer[i]) {
      nlohmann::json cj = {{"format", c.format.name()}, {"bytes", c.bytes}, {"measured", c.measured}};
      cj["rel_l2"] = c.measured ? nlohmann::json(c.error.relL2) : nlohmann::json(nullptr);
      cj["pearson"] = c.measured ? nlohmann::json(c.error.pearson) : nlohmann::json(nullptr);
      cs.push_back(cj);
    }
    row["candidates"] = cs;
    layers.push_back(row);
  }
  j["layers"] = layers;
  j["other_bytes"] = s.otherBytes;
  j["cost"] = {{"dense_run_ms", s.denseRunMs},
               {"analysis_ms", s.analysisMs},
               {"ops_rerun", s.opsRerun},
               {"ops_per_run", s.opsPerRun}};
  if (search) {
    nlohmann::json plan;
    plan["budget"] = search->budget.kind == PlanBudget::Kind::RelativeL2 ? nlohmann::json{{"rel_l2", search->budget.relL2}}
                                                                         : nlohmann::json{{"bytes", search->budget.bytes}};
    plan["met"] = search->met;
    plan["bytes"] = search->chosen.bytes;
    plan["rel_l2"] = search->chosen.error.relL2;
    plan["pearson"] = search->chosen.error.pearson;
    nlohmann::json formats = nlohmann::json::object();
    for (std::size_t i = 0; i < s.layers.size() && i < search->chosen.formats.size(); ++i)
      formats[s.layers[i].name] = search->chosen.formats[i].name();
    plan["formats"] = formats;
    j["plan"] = plan;
    nlohmann::json pareto = nlohmann::json::array();
    for (int i : search->pareto) {
      const PlanMeasurement& m = search->visited[static_cast<std::size_t>(i)];
      pareto.push_back({{"bytes", m.bytes}, {"rel_l2", m.error.relL2}, {"pearson", m.error.pearson}});
    }
    j["pareto"] = pareto;
    nlohmann::json uniform = nlohmann::json::array();
    for (std::size_t c = 0; c < search->uniform.size() && c < s.candidates.size(); ++c)
      uniform.push_back({{"format", s.candidates[c].name()},
                         {"bytes", search->uniform[c].bytes},
                         {"rel_l2", search->uniform[c].error.relL2},
                         {"pearson", search->uniform[c].error.pearson}});
    j["uniform"] = uniform;
  }
  return j;
}

std::string formatQuantReport(const QuantSensitivity& s, const PlanSearch* search) {
  std::ostringstream out;
  out << "inputs: " << s.inputsDescription << "\n";
  if (s.randomInputs)
    out << "warning: random inputs are a weak proxy for real data; sensitivities on your data may differ "
           "(give --inputs FILE or an archive with recorded inputs)\n";
  out << "sensitivity: relative L2 error at the outputs with only that layer quantized (measured)\n";
  out << "  layer";
  std::size_t width = 5;
  for (const QuantLayer& l : s.layers) width = std::max(width, l.name.size());
  out << std::string(width - 5 + 2, ' ') << "  params      dense";
  for (const WeightFormat& f : s.candidates) {
    const std::string name = f.name();
    out << "  " << std::string(name.size() < 9 ? 9 - name.size() : 0, ' ') << name << "  rel L2   ";
  }
  out << "\n";
  for (int i : s.ranking()) {
    const QuantLayer& l = s.layers[static_cast<std::size_t>(i)];
    char head[64];
    std::snprintf(head, sizeof head, "%8lld %10s", static_cast<long long>(l.parameters), bytesText(l.denseBytes).c_str());
    out << "  " << l.name << std::string(width - l.name.size() + 2, ' ') << head;
    for (const LayerCandidate& c : s.perLayer[static_cast<std::size_t>(i)]) {
      char cell[64];
      if (c.measured)
        std::snprintf(cell, sizeof cell, "  %9s  %-9s", bytesText(c.bytes).c_str(), sci(c.error.relL2).c_str());
      else
        std::snprintf(cell, sizeof cell, "  %9s  %-9s", "-", "dense");
      out << cell;
    }
    if (!l.packable) out << "  (stays dense: normalized convolution)";
    out << "\n";
  }
  const std::vector<WeightFormat> dense(s.layers.size());
  out << "weights: dense " << bytesText(s.bytesOf(dense));
  if (search)
    for (std::size_t c = 0; c < search->uniform.size() && c < s.candidates.size(); ++c)
      out << "; all " << s.candidates[c].name() << " " << bytesText(search->uniform[c].bytes) << ", rel L2 "
          << sci(search->uniform[c].error.relL2);
  out << "\n";
  if (search) {
    int counts[3] = {0, 0, 0};
    for (const WeightFormat& f : search->chosen.formats) ++counts[f.bits == 4 ? 2 : f.bits == 8 ? 1 : 0];
    out << "plan (" << (search->budget.kind == PlanBudget::Kind::RelativeL2 ? "budget rel L2 " + sci(search->budget.relL2)
                                                                          : "budget " + bytesText(search->budget.bytes))
        << "): " << bytesText(search->chosen.bytes) << ", measured rel L2 " << sci(search->chosen.error.relL2)
        << ", Pearson " << sci(search->chosen.error.pearson) << " (" << counts[2] << " int4, " << counts[1] << " int8, "
        << counts[0] << " dense)" << (search->met ? "" : "; the budget cannot be met") << "\n";
    out << "Pareto front of the " << search->visited.size() << " plans measured:\n";
    for (int i : search->pareto) {
      const PlanMeasurement& m = search->visited[static_cast<std::size_t>(i)];
      out << "  " << bytesText(m.bytes) << "  rel L2 " << sci(m.error.relL2) << "\n";
    }
  }
  out << "cost: dense run " << sci(s.denseRunMs) << " ms, analysis " << sci(s.analysisMs) << " ms ("
      << sci(s.denseRunMs > 0 ? s.analysisMs / s.denseRunMs : 0.0) << "x), " << s.opsRerun << " ops rerun ("
      << s.opsPerRun << " per run)\n";
  return out.str();
}

} // namespace lattice
