// Op matching for the artifact diff: pairs the ops of two entry functions so that a consistent
// renaming of values is not a change. Phases, each linear (hash maps) in the number of ops:
//   1. by name: the weight symbol (`@stem_weight`) or the first result (`%stem`);
//   2. weights left over: by storage key;
//   3. forward along the data flow: an unmatched B op pairs with the first unmatched A op of the
//      same kind whose operands come from the partners of its own producers (same positions;
//      arguments pair by position);
//   4. backward: producers in the same operand position of a matched pair, same kind, both
//      unmatched, pair up (this reaches weights whose symbol and key both changed);
//   5. forward again for what phase 4 unlocked.
// It does not compare the matched ops (GraphDiff.cpp does) and never pairs ops of different kinds
// except by name.

#include "diff/DiffInternal.h"

#include <deque>

namespace lattice::diff_detail {

const ArtifactFunction* entryFunction(const ArtifactGraph& graph) {
  for (const ArtifactFunction& f : graph.functions)
    if (f.name == "forward") return &f;
  return graph.entry();
}

ProducerMap producerMap(const ArtifactFunction& function) {
  ProducerMap map;
  map.reserve(function.arguments.size() + function.ops.size() * 2);
  for (std::size_t i = 0; i < function.arguments.size(); ++i)
    map.emplace(function.arguments[i].name, Producer{Producer::kArgument, static_cast<int>(i)});
  for (std::size_t o = 0; o < function.ops.size(); ++o) {
    const std::vector<ArtifactValueDef>& results = function.ops[o].results;
    for (std::size_t r = 0; r < results.size(); ++r)
      map.emplace(results[r].name, Producer{static_cast<int>(o), static_cast<int>(r)});
  }
  return map;
}

Producer producerOf(const ProducerMap& map, const std::string& name) {
  auto it = map.find(name);
  return it == map.end() ? Producer{} : it->second;
}

std::string opDisplayName(const ArtifactOp& op) {
  if (op.kind == OpKind::Weight && op.hasSymbol) return op.symbol;
  return op.results.empty() ? std::string() : op.results.front().name;
}

bool sameProducer(const OpMatching& matching, const Producer& producerA, const std::string& nameA,
                  const Producer& producerB, const std::string& nameB) {
  if (producerB.op == Producer::kUnknown) return producerA.op == Producer::kUnknown && nameA == nameB;
  if (producerB.op == Producer::kArgument) return producerA == producerB;
  return matching.bToA[static_cast<std::size_t>(producerB.op)] == producerA.op &&
         producerA.index == producerB.index;
}

namespace {

// Ops of A waiting for a partner, grouped by a key, consumed in A's order.
class Candidates {
public:
  void add(const std::string& key, int op) { m_queues[key].push_back(op); }
  // The first op under `key` that is still unmatched, removed from the queue; -1 when none.
  int take(const std::string& key, const std::vector<int>& aToB) {
    auto it = m_queues.find(key);
    if (it == m_queues.end()) return -1;
    std::deque<int>& q = it->second;
    while (!q.empty() && aToB[static_cast<std::size_t>(q.front())] >= 0)
      q.pop_front();
    if (q.empty()) return -1;
    const int op = q.front();
    q.pop_front();
    return op;
  }

private:
  std::unordered_map<std::string, std::deque<int>> m_queues;
};

std::string nameKey(const ArtifactOp& op) {
  if (op.kind == OpKind::Weight && op.hasSymbol) return "@" + op.symbol;
  return op.results.empty() ? std::string() : "%" + op.results.front().name;
}

std::string storageKey(const ArtifactOp& op) {
  if (op.kind != OpKind::Weight) return {};
  const ArtifactAttribute* key = op.attribute("storage_key");
  return key && key->value.isString() ? key->value.text : std::string();
}

void appendProducer(std::string& key, const Producer& p, const std::string& name) {
  if (p.op == Producer::kUnknown) {
    key += "?" + name;
  } else {
    key += std::to_string(p.op);
    key += ':';
    key += std::to_string(p.index);
  }
  key += ',';
}

class Matcher {
public:
  Matcher(const ArtifactFunction& a, const ProducerMap& pa, const ArtifactFunction& b, const ProducerMap& pb)
      : m_a(a), m_b(b), m_pa(pa), m_pb(pb) {
    m_m.aToB.assign(a.ops.size(), -1);
    m_m.bToA.assign(b.ops.size(), -1);
    m_m.byFlow.assign(b.ops.size(), 0);
  }

  OpMatching run() {
    matchByKey([](const ArtifactOp& op) { return nameKey(op); }, false);
    matchByKey([](const ArtifactOp& op) { return storageKey(op); }, true);
    matchForward();
    matchBackward();
    matchForward();
    return std::move(m_m);
  }

private:
  void link(int ia, int ib, bool flow) {
    m_m.aToB[static_cast<std::size_t>(ia)] = ib;
    m_m.bToA[static_cast<std::size_t>(ib)] = ia;
    m_m.byFlow[static_cast<std::size_t>(ib)] = flow ? 1 : 0;
  }

  template <typename KeyOf> void matchByKey(KeyOf keyOf, bool flow) {
    Candidates candidates;
    for (std::size_t i = 0; i < m_a.ops.size(); ++i) {
      if (m_m.aToB[i] >= 0) continue;
      const std::string key = keyOf(m_a.ops[i]);
      if (!key.empty()) candidates.add(key, static_cast<int>(i));
    }
    for (std::size_t j = 0; j < m_b.ops.size(); ++j) {
      if (m_m.bToA[j] >= 0) continue;
      const std::string key = keyOf(m_b.ops[j]);
      if (key.empty()) continue;
      const int ia = candidates.take(key, m_m.aToB);
      if (ia >= 0) link(ia, static_cast<int>(j), flow);
    }
  }

  // Kind and operand producers of an A op, in A's numbering.
  std::string signatureA(const ArtifactOp& op) const {
    std::string key = op.name + '(';
    for (const ArtifactValueUse& use : op.operands)
      appendProducer(key, producerOf(m_pa, use.name), use.name);
    return key;
  }

  // The same for a B op with its producers translated to A; "" when a producer has no partner.
  std::string signatureB(const ArtifactOp& op) const {
    std::string key = op.name + '(';
    for (const ArtifactValueUse& use : op.operands) {
      Producer p = producerOf(m_pb, use.name);
      if (p.op >= 0) {
        const int partner = m_m.bToA[static_cast<std::size_t>(p.op)];
        if (partner < 0) return {};
        p.op = partner;
      }
      appendProducer(key, p, use.name);
    }
    return key;
  }

  void matchForward() {
    Candidates candidates;
    for (std::size_t i = 0; i < m_a.ops.size(); ++i)
      if (m_m.aToB[i] < 0 && !m_a.ops[i].operands.empty())
        candidates.add(signatureA(m_a.ops[i]), static_cast<int>(i));
    // B is in SSA order, so a producer matched in this loop helps its consumers later in it.
    for (std::size_t j = 0; j < m_b.ops.size(); ++j) {
      if (m_m.bToA[j] >= 0 || m_b.ops[j].operands.empty()) continue;
      const std::string key = signatureB(m_b.ops[j]);
      if (key.empty()) continue;
      const int ia = candidates.take(key, m_m.aToB);
      if (ia >= 0) link(ia, static_cast<int>(j), true);
    }
  }

  void matchBackward() {
    for (std::size_t j = m_b.ops.size(); j-- > 0;) {
      const int ia = m_m.bToA[j];
      if (ia < 0) continue;
      const ArtifactOp& opB = m_b.ops[j];
      const ArtifactOp& opA = m_a.ops[static_cast<std::size_t>(ia)];
      const std::size_t n = std::min(opA.operands.size(), opB.operands.size());
      for (std::size_t k = 0; k < n; ++k) {
        const Producer pa = producerOf(m_pa, opA.operands[k].name);
        const Producer pb = producerOf(m_pb, opB.operands[k].name);
        if (pa.op < 0 || pb.op < 0 || pa.index != pb.index) continue;
        if (m_m.aToB[static_cast<std::size_t>(pa.op)] >= 0 || m_m.bToA[static_cast<std::size_t>(pb.op)] >= 0)
          continue;
        if (m_a.ops[static_cast<std::size_t>(pa.op)].name != m_b.ops[static_cast<std::size_t>(pb.op)].name)
          continue;
        link(pa.op, pb.op, true);
      }
    }
  }

  const ArtifactFunction& m_a;
  const ArtifactFunction& m_b;
  const ProducerMap& m_pa;
  const ProducerMap& m_pb;
  OpMatching m_m;
};

} // namespace

OpMatching matchOps(const ArtifactFunction& a, const ProducerMap& producersA, const ArtifactFunction& b,
                    const ProducerMap& producersB) {
  return Matcher(a, producersA, b, producersB).run();
}

} // namespace lattice::diff_detail
