// The conv family and the local pooling ops against a second method: a naive reference written
// here straight from lattice-artifact-validation.md sec. 10.2 (offsets), 10.3 (the six relation
// builders: supports, their order, edges) and 10.4 (conv, normalized conv, pooling), with a
// std::map from coordinate to its first row and every sum in double. Run on 5000 points on
// surfaces in two batches, 3 input and 4 output channels: big enough for the runtime's chunked
// and parallel kernel-map builds, gathers and scatters, which the hand-worked tests' few points
// never reach. Supports must match row for row (their order is specified); features within
// 1e-5 relative (+1e-5 absolute) in the default mode and 1e-6 in the exact mode.

#include "RuntimeTestSupport.h"

#include "runtime/RandomInputs.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace lattice;
using namespace lattice::rt;

namespace {

using Triple = std::array<std::int64_t, 3>;
using Key = std::array<std::int64_t, 4>;

enum class Rel { Forward, Subm, Target, Transposed, TargetTransposed, Generative };
enum class Off { Sparse, Indexed, IndexedNoDilation };

struct Points {
  std::vector<Key> coords; // logical
  std::vector<double> features;
  std::map<Key, std::int64_t> first; // coordinate → its first row

  void index() {
    for (std::size_t r = 0; r < coords.size(); ++r) first.emplace(coords[r], static_cast<std::int64_t>(r));
  }
  std::int64_t find(const Key& k) const {
    const auto it = first.find(k);
    return it == first.end() ? -1 : it->second;
  }
};

// Sec. 10.2: offsets of kernel row k = (px·Ky + py)·Kz + pz.
std::vector<Triple> offsets(Off family, Triple K, Triple d) {
  std::vector<Triple> out;
  for (std::int64_t px = 0; px < K[0]; ++px)
    for (std::int64_t py = 0; py < K[1]; ++py)
      for (std::int64_t pz = 0; pz < K[2]; ++pz) {
        const std::int64_t p[3] = {px, py, pz};
        Triple o;
        for (int a = 0; a < 3; ++a)
          o[a] = family == Off::Sparse ? (K[a] % 2 ? (p[a] - K[a] / 2) * d[a] : p[a] * d[a])
                 : family == Off::Indexed ? p[a] * d[a]
                                          : p[a];
        out.push_back(o);
      }
  return out;
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

struct Edge {
  std::int64_t in, out, k;
};

// Sec. 10.3: the output support (in order) and the edges of one relation.
void relate(Rel rel, const Points& x, const Points* target, Triple K, Triple s, Triple p, Triple d, Off family,
            std::vector<Key>& support, std::vector<Edge>& edges) {
  const std::vector<Triple> off = offsets(family, K, d);
  const std::int64_t V = static_cast<std::int64_t>(off.size());
  support.clear();
  edges.clear();
  auto lookupAll = [&](auto query) { // for each output row and kernel row, the input it reads
    for (std::size_t o = 0; o < support.size(); ++o)
      for (std::int64_t k = 0; k < V; ++k) {
        Key q;
        if (!query(support[o], off[static_cast<std::size_t>(k)], q)) continue;
        const std::int64_t i = x.find(q);
        if (i >= 0) edges.push_back({i, static_cast<std::int64_t>(o), k});
      }
  };
  switch (rel) {
  case Rel::Forward: {
    std::map<Key, std::int64_t> seen;
    const bool identity = s == Triple{1, 1, 1} && p == Triple{0, 0, 0};
    for (const Key& c : x.coords) {
      const Key o = identity ? c : Key{c[0], floorDiv(c[1], s[0]), floorDiv(c[2], s[1]), floorDiv(c[3], s[2])};
      if (identity || seen.emplace(o, 0).second) support.push_back(o);
    }
    lookupAll([&](const Key& o, const Triple& f, Key& q) {
      q = {o[0], o[1] * s[0] + f[0] - p[0], o[2] * s[1] + f[1] - p[1], o[3] * s[2] + f[2] - p[2]};
      return true;
    });
    break;
  }
  case Rel::Subm:
    support = x.coords;
    lookupAll([&](const Key& o, const Triple& f, Key& q) {
      q = {o[0], o[1] + f[0], o[2] + f[1], o[3] + f[2]};
      return true;
    });
    break;
  case Rel::Target:
    support = target->coords;
    lookupAll([&](const Key& t, const Triple& f, Key& q) {
      q = {t[0], t[1] * s[0] + f[0] - p[0], t[2] * s[1] + f[1] - p[1], t[3] * s[2] + f[2] - p[2]};
      return true;
    });
    break;
  case Rel::TargetTransposed:
    support = target->coords;
    lookupAll([&](const Key& t, const Triple& f, Key& q) {
      q[0] = t[0];
      for (int a = 0; a < 3; ++a) {
        const std::int64_t v = t[a + 1] + p[a] - f[a];
        if (v % s[a] != 0) return false;
        q[a + 1] = v / s[a];
      }
      return true;
    });
    break;
  case Rel::Transposed: {
    std::map<Key, std::int64_t> rowOf;
    for (std::size_t i = 0; i < x.coords.size(); ++i)
      for (std::int64_t k = 0; k < V; ++k) {
        const Key& c = x.coords[i];
        const Triple& f = off[static_cast<std::size_t>(k)];
        const Key o{c[0], c[1] * s[0] + f[0] - p[0], c[2] * s[1] + f[1] - p[1], c[3] * s[2] + f[2] - p[2]};
        const auto [it, added] = rowOf.emplace(o, static_cast<std::int64_t>(support.size()));
        if (added) support.push_back(o);
        edges.push_back({static_cast<std::int64_t>(i), it->second, k});
      }
    break;
  }
  case Rel::Generative:
    for (std::size_t i = 0; i < x.coords.size(); ++i)
      for (std::int64_t k = 0; k < V; ++k) {
        const Key& c = x.coords[i];
        const Triple& f = off[static_cast<std::size_t>(k)];
        support.push_back({c[0], c[1] * s[0] + f[0], c[2] * s[1] + f[1], c[3] * s[2] + f[2]});
        edges.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) * V + k, k});
      }
    break;
  }
}

double wave(std::int64_t i, double scale) { return scale * std::sin(0.61 * static_cast<double>(i) + 0.2); }

struct RefCase {
  const char* name;
  std::string op;
  Rel rel;
  Off family;
  Triple K, s{1, 1, 1}, p{0, 0, 0}, d{1, 1, 1};
  std::int64_t inStride = 1;     // on every axis
  std::int64_t targetStride = 0; // 0: no target
  bool normalized = false, pool = false;
  std::string mode = {}; // pooling mode ("mean" for pool_transpose3d and trilinear_upsample3d)
  bool trilinear = false;
};

std::string tri(const Triple& t) {
  return "array<i64: " + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) + ">";
}

const std::vector<RefCase>& cases() {
  static const std::vector<RefCase> c = {
      {"subm 3x3x3", "subm_conv3d", Rel::Subm, Off::Sparse, {3, 3, 3}},
      {"subm (3,1,5) dilation (1,1,2)", "subm_conv3d", Rel::Subm, Off::Sparse, {3, 1, 5}, {1, 1, 1}, {0, 0, 0}, {1, 1, 2}},
      {"normalized subm 3x3x3", "normalized_subm_conv3d", Rel::Subm, Off::Sparse, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, 0, true},
      {"conv3d k2 s2", "conv3d", Rel::Forward, Off::Sparse, {2, 2, 2}, {2, 2, 2}},
      {"conv3d k3 s2 p1", "conv3d", Rel::Forward, Off::Sparse, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}},
      {"conv3d k3 s1 p0", "conv3d", Rel::Forward, Off::Sparse, {3, 3, 3}},
      {"conv3d k3 s1 p1 on stride 2", "conv3d", Rel::Forward, Off::Sparse, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 2},
      {"target_conv3d k3 s2", "target_conv3d", Rel::Target, Off::Sparse, {3, 3, 3}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 1, 2},
      {"conv_transpose3d k2 s2", "conv_transpose3d", Rel::Transposed, Off::Indexed, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 2},
      {"conv_transpose3d k3 s2 p1", "conv_transpose3d", Rel::Transposed, Off::Indexed, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 2},
      {"normalized_conv_transpose3d k2 s2", "normalized_conv_transpose3d", Rel::Transposed, Off::Indexed, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 2, 0, true},
      {"target_conv_transpose3d k3 s2 p1", "target_conv_transpose3d", Rel::TargetTransposed, Off::Indexed, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 2, 1},
      {"target_normalized_conv_transpose3d k3 s2 p1", "target_normalized_conv_transpose3d", Rel::TargetTransposed, Off::Indexed, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 2, 1, true},
      {"generative k2 s2", "generative_conv_transpose3d", Rel::Generative, Off::IndexedNoDilation, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 2},
      {"normalized_generative k(2,1,2) s(2,1,2)", "normalized_generative_conv_transpose3d", Rel::Generative, Off::IndexedNoDilation, {2, 1, 2}, {2, 1, 2}, {0, 0, 0}, {1, 1, 1}, 2, 0, true},
      {"pool3d sum k3 s2 p1", "pool3d", Rel::Forward, Off::Sparse, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, 0, false, true, "sum"},
      {"pool3d max k2 s2", "pool3d", Rel::Forward, Off::Sparse, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 1, 0, false, true, "max"},
      {"pool3d avg k3 s1 d2", "pool3d", Rel::Forward, Off::Sparse, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}, {2, 2, 2}, 1, 0, false, true, "avg"},
      {"pool_transpose3d k3 s2 p1", "pool_transpose3d", Rel::Transposed, Off::Indexed, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 2, 0, false, true, "mean"},
      {"pool_transpose3d with target", "pool_transpose3d", Rel::TargetTransposed, Off::Indexed, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 2, 1, false, true, "mean"},
      // σ = 3: kernel 2σ − 1 = 5, stride σ, padding σ − 1, weights Π (1 − |off − (σ − 1)| / σ).
      {"trilinear_upsample3d stride 3", "trilinear_upsample3d", Rel::Transposed, Off::Indexed, {5, 5, 5}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, 3, 0, false, true, "mean", true},
      {"trilinear_upsample3d stride 3 with target", "trilinear_upsample3d", Rel::TargetTransposed, Off::Indexed, {5, 5, 5}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, 3, 1, false, true, "mean", true},
  };
  return c;
}

const std::int64_t kPoints = 5000, kCin = 3, kCout = 4;

} // namespace

class TestRuntimeReference : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void matchesTheNaiveReference_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i) QTest::newRow(cases()[i].name) << static_cast<int>(i);
  }
  void matchesTheNaiveReference() {
    QFETCH(int, index);
    const RefCase& c = cases()[static_cast<std::size_t>(index)];
    const std::vector<std::int32_t> cloud = runtime::surfacePoints(kPoints, 2, 3);
    Points x;
    for (std::size_t r = 0; r < cloud.size(); r += 4) x.coords.push_back({cloud[r], cloud[r + 1], cloud[r + 2], cloud[r + 3]});
    for (std::int64_t i = 0; i < kPoints * kCin; ++i) x.features.push_back(static_cast<float>(wave(i, 1.0)));
    x.index();
    // The target: fine points next to the input's (target transposed: c·s_in + (1, 0 or 1, 0)), or
    // most of the input's forward support at stride 2 (target conv).
    Points target;
    if (c.targetStride == 1) {
      target.coords = x.coords;
      for (std::size_t i = 0; i < x.coords.size(); ++i) // a coarser target: every other point
        if (i % 2 == 0)
          target.coords[i / 2] = {x.coords[i][0], c.inStride * x.coords[i][1] + 1, c.inStride * x.coords[i][2] + (i % 4 == 0),
                                  c.inStride * x.coords[i][3]};
      target.coords.resize((x.coords.size() + 1) / 2);
    } else if (c.targetStride == 2) {
      std::map<Key, int> seen;
      for (const Key& k : x.coords) {
        const Key o{k[0], floorDiv(k[1], 2), floorDiv(k[2], 2), floorDiv(k[3], 2)};
        if ((o[1] + o[2]) % 3 != 0 && seen.emplace(o, 0).second) target.coords.push_back(o); // most of them
      }
    }
    target.index();

    const std::int64_t V = c.K[0] * c.K[1] * c.K[2];
    const std::int64_t cout = c.pool ? kCin : kCout;
    std::vector<float> w, bias;
    for (std::int64_t i = 0; i < kCout * V * kCin; ++i) w.push_back(static_cast<float>(wave(i + 7, 0.5)));
    for (std::int64_t i = 0; i < kCout; ++i) bias.push_back(static_cast<float>(wave(i + 99, 0.3)));

    std::vector<Key> support;
    std::vector<Edge> edges;
    relate(c.rel, x, &target, c.K, c.s, c.p, c.d, c.family, support, edges);
    // Sec. 10.4 in double: conv Σ X·W_k (+ normalization) + bias; pooling sum / max / avg / mean.
    const std::size_t rows = support.size();
    std::vector<double> acc(rows * static_cast<std::size_t>(cout), c.mode == "max" ? -INFINITY : 0.0);
    std::vector<double> norm(acc.size(), 0.0), degree(rows, 0.0); // degree: Σ of the edges' weights
    std::vector<int> sources(rows, 0);
    const std::vector<Triple> off = offsets(c.family, c.K, c.d);
    for (const Edge& e : edges) {
      double wk = 1; // trilinear: the kernel row's weight
      if (c.trilinear)
        for (int a = 0; a < 3; ++a)
          wk *= 1.0 - std::fabs(double(off[static_cast<std::size_t>(e.k)][a] - (c.s[a] - 1))) / double(c.s[a]);
      degree[static_cast<std::size_t>(e.out)] += wk;
      ++sources[static_cast<std::size_t>(e.out)];
      for (std::int64_t co = 0; co < cout; ++co) {
        double& dst = acc[static_cast<std::size_t>(e.out * cout + co)];
        if (c.pool) {
          const double v = x.features[static_cast<std::size_t>(e.in * kCin + co)];
          dst = c.mode == "max" ? std::max(dst, v) : dst + wk * v;
          continue;
        }
        for (std::int64_t ci = 0; ci < kCin; ++ci) {
          const double wk = w[static_cast<std::size_t>((co * V + e.k) * kCin + ci)]; // Wt[co, k, ci]
          dst += x.features[static_cast<std::size_t>(e.in * kCin + ci)] * wk;
          norm[static_cast<std::size_t>(e.out * cout + co)] += wk * wk;
        }
      }
    }
    std::vector<double> expected(acc.size());
    for (std::size_t r = 0; r < rows; ++r)
      for (std::int64_t co = 0; co < cout; ++co) {
        const std::size_t at = r * static_cast<std::size_t>(cout) + static_cast<std::size_t>(co);
        double v = acc[at];
        if (c.pool && (c.mode == "avg" || c.mode == "mean")) v = degree[r] > 0 ? v / degree[r] : 0.0;
        if (c.normalized) v /= std::sqrt(norm[at] + static_cast<double>(0.001f));
        if (!c.pool) v += bias[static_cast<std::size_t>(co)];
        expected[at] = v;
      }

    Graph g;
    g.sparseInput("x", kCin, {c.inStride, c.inStride, c.inStride});
    if (c.targetStride) g.sparseInput("t", 1, {c.targetStride, c.targetStride, c.targetStride});
    std::string attrs = "{kernel_size = " + tri(c.K);
    const bool generative = c.rel == Rel::Generative, subm = c.rel == Rel::Subm;
    if (!subm) attrs += ", stride = " + tri(c.s);
    if (!subm && !generative) attrs += ", padding = " + tri(c.p);
    if (!generative) attrs += ", dilation = " + tri(c.d);
    if (c.normalized) attrs += ", eps = 0.001 : f32";
    if (c.pool) {
      if (c.op == "pool3d") attrs = "{mode = #lattice.pool_mode<" + c.mode + ">, " + attrs.substr(1);
      attrs = c.trilinear ? "{stride = " + tri(c.s) + "}" : attrs + "}";
      g.op("%y = lattice." + c.op + (c.targetStride ? " %x, %t " : " %x ") + attrs + " : (" +
           (c.targetStride ? "$S, $S" : "$S") + ") -> $S");
    } else {
      attrs += ", accumulation = \"canonical_f32\"}";
      g.weight("w", "conv3d", "conv3d_o_xyz_i", {kCout, c.K[0], c.K[1], c.K[2], kCin}, w);
      g.weight("b", "bias", "bias_c", {kCout}, bias);
      g.op("%y = lattice." + c.op + (c.targetStride ? " %x, %t, %w, %b " : " %x, %w, %b ") + attrs + " : (" +
           (c.targetStride ? "$S, $S, $WC, $WB" : "$S, $WC, $WB") + ") -> $S");
    }
    g.output("y", "$S");
    Inputs in;
    auto physical = [](const std::vector<Key>& keys, Triple stride) {
      std::vector<Coord> out;
      for (const Key& k : keys)
        out.push_back({static_cast<std::int32_t>(k[0]), static_cast<std::int32_t>(k[1] * stride[0]),
                       static_cast<std::int32_t>(k[2] * stride[1]), static_cast<std::int32_t>(k[3] * stride[2])});
      return out;
    };
    const Triple inStride{c.inStride, c.inStride, c.inStride};
    in.sparse("x", physical(x.coords, inStride), std::vector<float>(x.features.begin(), x.features.end()), kCin);
    if (c.targetStride)
      in.sparse("t", physical(target.coords, {c.targetStride, c.targetStride, c.targetStride}),
                std::vector<float>(target.coords.size(), 1.0f), 1);

    Triple outStride = inStride; // sec. 10.1: s ⊙ stride forward, s ⊘ stride transposed
    for (int a = 0; a < 3; ++a) {
      if (c.rel == Rel::Forward || c.rel == Rel::Target) outStride[a] = c.inStride * c.s[a];
      if (c.rel == Rel::Transposed || c.rel == Rel::TargetTransposed || generative) outStride[a] = c.inStride / c.s[a];
    }
    // A relation with real neighbourhoods: many edges, and rows that sum several of them.
    QVERIFY(edges.size() >= static_cast<std::size_t>(kPoints / 4));
    const bool oneSourceEach = c.rel == Rel::Generative || (c.rel == Rel::Transposed && c.K == c.s);
    QVERIFY(*std::max_element(sources.begin(), sources.end()) >= 2 || oneSourceEach);
    for (Numerics numerics : {Numerics::Default, Numerics::Exact}) {
      const Run r = run(g, in, numerics);
      QVERIFY2(r.ok(), r.error.c_str());
      const double tol = numerics == Numerics::Exact ? 1e-6 : 1e-5;
      RT_CHECK(sameSparse(r.sparse(), physical(support, outStride), expected, tol, tol));
      const runtime::OpStats& st = r.runtime->stats(r.runtime->plan().opIndexOf("y"));
      QCOMPARE(st.edges, static_cast<std::int64_t>(edges.size()));
    }
  }

  // sparse.binary (sub, fills −1 / 100) and sparse.cat under every join on 5000 lhs rows and an
  // rhs holding every third lhs coordinate (in reverse order) plus 2000 of its own, against the
  // alignment of sec. 10.4 written here with std::map.
  void alignmentMatchesTheNaiveReference_data() {
    QTest::addColumn<QString>("join");
    for (const char* j : {"inner", "left", "right", "outer"}) QTest::newRow(j) << QString(j);
  }
  void alignmentMatchesTheNaiveReference() {
    QFETCH(QString, join);
    const std::string j = join.toStdString();
    Points l, r;
    const std::vector<std::int32_t> a = runtime::surfacePoints(kPoints, 2, 5), b = runtime::surfacePoints(2000, 2, 6);
    for (std::size_t i = 0; i < a.size(); i += 4) l.coords.push_back({a[i], a[i + 1], a[i + 2], a[i + 3]});
    l.index();
    for (std::size_t i = l.coords.size(); i-- > 0;)
      if (i % 3 == 0) r.coords.push_back(l.coords[i]);
    for (std::size_t i = 0; i < b.size(); i += 4) {
      const Key k{b[i], b[i + 1], b[i + 2], b[i + 3] + 1000}; // apart from the lhs
      r.coords.push_back(k);
    }
    r.index();
    for (std::size_t i = 0; i < l.coords.size() * 2; ++i) l.features.push_back(static_cast<float>(wave(static_cast<std::int64_t>(i), 2)));
    for (std::size_t i = 0; i < r.coords.size() * 2; ++i) r.features.push_back(static_cast<float>(wave(static_cast<std::int64_t>(i) + 5, 3)));

    // Rows of the result: (lhs row or −1, rhs row or −1) in the join's order.
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;
    if (j == "right") {
      for (std::size_t i = 0; i < r.coords.size(); ++i) rows.push_back({l.find(r.coords[i]), static_cast<std::int64_t>(i)});
    } else {
      for (std::size_t i = 0; i < l.coords.size(); ++i) {
        const std::int64_t m = r.find(l.coords[i]);
        if (j != "inner" || m >= 0) rows.push_back({static_cast<std::int64_t>(i), m});
      }
      if (j == "outer")
        for (std::size_t i = 0; i < r.coords.size(); ++i)
          if (l.find(r.coords[i]) < 0) rows.push_back({-1, static_cast<std::int64_t>(i)});
    }
    std::vector<Coord> coords;
    std::vector<double> diff, cat;
    for (const auto& [li, ri] : rows) {
      const Key& k = li >= 0 ? l.coords[static_cast<std::size_t>(li)] : r.coords[static_cast<std::size_t>(ri)];
      coords.push_back({static_cast<std::int32_t>(k[0]), static_cast<std::int32_t>(k[1]), static_cast<std::int32_t>(k[2]),
                        static_cast<std::int32_t>(k[3])});
      for (int ch = 0; ch < 2; ++ch) {
        const double lv = li >= 0 ? l.features[static_cast<std::size_t>(li * 2 + ch)] : -1.0;
        const double rv = ri >= 0 ? r.features[static_cast<std::size_t>(ri * 2 + ch)] : 100.0;
        diff.push_back(static_cast<float>(lv - rv));
      }
      for (int ch = 0; ch < 4; ++ch) {
        const std::int64_t side = ch < 2 ? li : ri;
        const std::vector<double>& f = ch < 2 ? l.features : r.features;
        cat.push_back(side >= 0 ? f[static_cast<std::size_t>(side * 2 + ch % 2)] : 0.0);
      }
    }
    QVERIFY(rows.size() > 1000);

    Graph g;
    g.sparseInput("l", 2).sparseInput("r", 2);
    g.op("%d = lattice.sparse.binary %l, %r {op = #lattice.binary_op<sub>, join = #lattice.join<" + j +
         ">, lhs_fill = -1.0 : f32, rhs_fill = 100.0 : f32} : ($S, $S) -> $S");
    g.op("%c = lattice.sparse.cat %l, %r {join = #lattice.join<" + j + ">} : ($S, $S) -> $S");
    g.output("d", "$S").output("c", "$S");
    auto physical = [](const std::vector<Key>& keys) {
      std::vector<Coord> out;
      for (const Key& k : keys)
        out.push_back({static_cast<std::int32_t>(k[0]), static_cast<std::int32_t>(k[1]), static_cast<std::int32_t>(k[2]),
                       static_cast<std::int32_t>(k[3])});
      return out;
    };
    Inputs in;
    in.sparse("l", physical(l.coords), std::vector<float>(l.features.begin(), l.features.end()), 2);
    in.sparse("r", physical(r.coords), std::vector<float>(r.features.begin(), r.features.end()), 2);
    const Run run1 = run(g, in);
    QVERIFY2(run1.ok(), run1.error.c_str());
    RT_CHECK(sameSparse(run1.sparse(0), coords, diff, 0, 0));
    RT_CHECK(sameSparse(run1.sparse(1), coords, cat, 0, 0));
  }
};

QTEST_GUILESS_MAIN(TestRuntimeReference)
#include "tst_runtime_reference.moc"
