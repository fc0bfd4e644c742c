// The steppable Runtime API (runtime/Runtime.h): start, step, runUntil, run, currentOp and
// finished; values freed after their last use by default (std::monostate) and kept with
// keepValues, outputs always kept; values() keyed by SSA name; an error leaves the runtime on the
// failing op; cancel() from another thread ends a long run with "cancelled"; per-op statistics
// (ran, ms, rows, edges, flops = 2·edges·C_in·C_out counted by hand, kernel-map time, with the
// subm convs of a block sharing one map); the KernelMapCache on its own.

#include "RuntimeTestSupport.h"

#include "runtime/KernelMap.h"
#include "runtime/RandomInputs.h"

#include <QtTest/QtTest>

#include <chrono>
#include <thread>

using namespace lattice;
using namespace lattice::rt;

namespace {

const std::string kSubm3 = "{kernel_size = array<i64: 3, 1, 1>, dilation = array<i64: 1, 1, 1>, accumulation = "
                           "\"canonical_f32\"}";

/// x (2 channels) → %y = subm(x, w) → %z = subm(y, w) → %a = relu(decompose(z)) ; outputs z, a.
Graph twoConvs() {
  Graph g;
  g.sparseInput("x", 2);
  g.weight("w", "conv3d", "conv3d_o_xyz_i", {2, 3, 1, 1, 2}, std::vector<float>(12, 0.5f));
  g.op("%y = lattice.subm_conv3d %x, %w " + kSubm3 + " : ($S, $WC) -> $S");
  g.op("%z = lattice.subm_conv3d %y, %w " + kSubm3 + " : ($S, $WC) -> $S");
  g.op("%c, %f, %n = lattice.sparse.decompose %z : $S -> (tensor<?x4xi32>, tensor<?x2xf32>, tensor<1xi32>)");
  g.op("%a = lattice.activation %f {kind = #lattice.activation<relu>, approximate = #lattice.gelu_approx<none>, "
       "alpha = 0.01 : f32, beta = 1.0 : f32, threshold = 20.0 : f32} : (tensor<?x2xf32>) -> tensor<?x2xf32>");
  g.output("z", "$S").output("a", "tensor<?x2xf32>");
  return g;
}

/// Three points in a row: x 0, 1, 2.
Inputs threePoints() {
  Inputs in;
  in.sparse("x", {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}}, {1, 2, 3, 4, 5, 6}, 2);
  return in;
}

bool freed(const Runtime& rt, const char* ssa) {
  return std::holds_alternative<std::monostate>(rt.value(rt.plan().slotOf(ssa)));
}

} // namespace

class TestRuntimeApi : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void stepsRunUntilAndRun() {
    Expected<Runtime> made = twoConvs().runtime();
    QVERIFY2(made, made ? "" : made.message().c_str());
    Runtime& rt = *made;
    const int y = rt.plan().opIndexOf("y"), z = rt.plan().opIndexOf("z");
    const int ops = static_cast<int>(rt.plan().ops.size());
    QVERIFY(!rt.started());
    QVERIFY(!rt.step()); // not started
    QVERIFY(!rt.outputs());
    QVERIFY(rt.start(threePoints().get()));
    QVERIFY(rt.started() && !rt.finished());
    QCOMPARE(rt.currentOp(), 0);
    QVERIFY(rt.step()); // sparse.make
    QCOMPARE(rt.currentOp(), 1);
    QVERIFY(std::holds_alternative<runtime::Sparse>(rt.value(rt.plan().slotOf("x"))));
    QVERIFY(rt.runUntil(z)); // stops before %z: %y is computed, %z not yet
    QCOMPARE(rt.currentOp(), z);
    QVERIFY(!freed(rt, "y"));
    QVERIFY(freed(rt, "z"));
    QVERIFY(freed(rt, "x")); // its last use (%y) ran
    QVERIFY(!rt.outputs());  // not finished
    QVERIFY(rt.stats(y).ran && !rt.stats(z).ran);
    QVERIFY(rt.run());
    QVERIFY(rt.finished());
    QCOMPARE(rt.currentOp(), ops);
    QVERIFY(rt.step()); // a step past the end does nothing
    // Freed after their last use: x, w, y, the decompose results; outputs z and a remain.
    for (const char* gone : {"x", "w", "y", "c", "f", "n"}) QVERIFY2(freed(rt, gone), gone);
    QVERIFY(!freed(rt, "z") && !freed(rt, "a"));
    Expected<std::vector<NamedTensor>> out = rt.outputs();
    QVERIFY(out);
    std::vector<std::string> keys;
    for (const NamedTensor& t : *out) keys.push_back(t.key);
    QCOMPARE(keys, (std::vector<std::string>{"output.coords", "output.features", "output.active", "output_1"}));
  }

  // With keepValues every value stays; values() names them by SSA name (sparse ones as
  // NAME.coords / .features / .active), without the weights.
  void keepValuesKeepsEveryValue() {
    const Run r = run(twoConvs(), threePoints(), Numerics::Default, /*keepValues=*/true);
    QVERIFY2(r.ok(), r.error.c_str());
    for (const char* kept : {"x", "w", "y", "z", "c", "f", "n", "a"}) QVERIFY2(!freed(*r.runtime, kept), kept);
    std::vector<std::string> keys;
    for (const NamedTensor& t : r.runtime->values()) keys.push_back(t.key);
    QCOMPARE(keys, (std::vector<std::string>{"x.coords", "x.features", "x.active", "y.coords", "y.features",
                                             "y.active", "z.coords", "z.features", "z.active", "c", "f", "n", "a"}));
  }

  // A second start clears the previous run's values, statistics and error.
  void startAgainClearsThePreviousRun() {
    Expected<Runtime> rt = twoConvs().runtime();
    QVERIFY(rt);
    QVERIFY(rt->start(threePoints().get()));
    QVERIFY(rt->run());
    QVERIFY(rt->start(threePoints().get()));
    QCOMPARE(rt->currentOp(), 0);
    QVERIFY(!rt->stats(1).ran);
    QVERIFY(freed(*rt, "z"));
  }

  // Statistics of the tiny case, counted by hand. x 0, 1, 2 with kernel 3 along x: the edges are
  // x0 ← {0, 1}, x1 ← {0, 1, 2}, x2 ← {1, 2}: 7; C_in = C_out = 2 → flops 2·7·2·2 = 56. %z runs
  // on %y's support (a subm keeps it) with the same relation: it reuses %y's kernel map.
  void statisticsAndSharedKernelMap() {
    const Run r = run(twoConvs(), threePoints());
    QVERIFY2(r.ok(), r.error.c_str());
    const Runtime& rt = *r.runtime;
    for (std::size_t i = 0; i < rt.plan().ops.size(); ++i) {
      QVERIFY(rt.stats(static_cast<int>(i)).ran);
      QVERIFY(rt.stats(static_cast<int>(i)).ms >= 0.0);
    }
    const runtime::OpStats& y = rt.stats(rt.plan().opIndexOf("y"));
    const runtime::OpStats& z = rt.stats(rt.plan().opIndexOf("z"));
    QCOMPARE(y.rows, std::int64_t(3));
    QCOMPARE(y.edges, std::int64_t(7));
    QCOMPARE(y.flops, 56.0);
    QCOMPARE(z.flops, 56.0);
    QVERIFY(y.kernelMapMs > 0.0);
    QCOMPARE(z.kernelMapMs, 0.0);
    QCOMPARE(rt.kernelMapMs(), y.kernelMapMs);
    QCOMPARE(rt.stats(rt.plan().opIndexOf("a")).rows, std::int64_t(3));
    // The values: W_k = 0.5 everywhere, so y = 0.5·(sum of both channels over the row's edges)
    // in each output channel: x0: 0.5·(1+2+3+4) = 5, x1: 0.5·21 = 10.5, x2: 0.5·(3+4+5+6) = 9;
    // z the same over y (two channels each): x0 2·(5+10.5)/2 = 15.5, x1 24.5, x2 19.5.
    RT_CHECK(sameSparse(r.sparse(0), {{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 2, 0, 0}}, {15.5, 15.5, 24.5, 24.5, 19.5, 19.5}));
  }

  // The cache hands out one map per (input, target, relation); a different relation or input
  // is a different map.
  void kernelMapCacheSharesMaps() {
    const auto coords = runtime::CoordSet::make({0, 0, 0, 0, 0, 1, 0, 0});
    const auto other = runtime::CoordSet::make({0, 0, 0, 0, 0, 1, 0, 0});
    runtime::KernelMapCache cache;
    runtime::RelationSpec subm;
    subm.kernel = {3, 3, 3};
    bool built = false;
    const auto first = cache.get(coords, nullptr, subm, &built);
    QVERIFY(built);
    QCOMPARE(first->output.get(), coords.get());
    QCOMPARE(first->edges(), std::int64_t(4)); // each row sees itself and the other
    QCOMPARE(first->identityRow, std::int64_t(13)); // the centre (1, 1, 1) of 3×3×3
    QCOMPARE(cache.get(coords, nullptr, subm, &built).get(), first.get());
    QVERIFY(!built);
    runtime::RelationSpec dilated = subm;
    dilated.dilation = {2, 2, 2};
    QVERIFY(cache.get(coords, nullptr, dilated, &built).get() != first.get());
    QVERIFY(built);
    QVERIFY(cache.get(other, nullptr, subm, &built).get() != first.get()); // equal coords, another set
    QCOMPARE(cache.size(), std::size_t(3));
    cache.clear();
    QCOMPARE(cache.size(), std::size_t(0));
  }

  // An error leaves the runtime on the failing op (later steps give the same error) and keeps
  // what ran before it.
  void errorStaysOnTheFailingOp() {
    Graph g;
    g.sparseInput("x", 1);
    g.op("%y = lattice.global_pool %x {mode = #lattice.pool_mode<max>, batch_size = 3} : ($S) -> tensor<?x1xf32>");
    g.output("y", "tensor<?x1xf32>");
    Inputs in;
    in.sparse("x", {{0, 0, 0, 0}}, {1}, 1);
    Expected<Runtime> rt = g.runtime();
    QVERIFY(rt);
    QVERIFY(rt->start(in.get()));
    const Status s = rt->run();
    QVERIFY(!s);
    QCOMPARE(rt->currentOp(), 1);
    QVERIFY(!freed(*rt, "x"));
    QCOMPARE(rt->step().message(), s.message());
    QCOMPARE(rt->runUntil(5).message(), s.message());
    QVERIFY(!rt->stats(1).ran);
  }

  // cancel() from another thread stops a long run between or inside ops with "cancelled" on
  // the op it stopped at. 60 subm convs 16 → 16 (kernel 3³) on 20 000 surface points take
  // seconds; the cancel comes after 30 ms.
  void cancelFromAnotherThread() {
    Graph g;
    g.sparseInput("x", 16);
    g.weight("w", "conv3d", "conv3d_o_xyz_i", {16, 3, 3, 3, 16}, std::vector<float>(16 * 27 * 16, 0.01f));
    std::string prev = "x";
    for (int i = 0; i < 60; ++i) {
      const std::string name = "c" + std::to_string(i);
      g.op("%" + name + " = lattice.subm_conv3d %" + prev + ", %w {kernel_size = array<i64: 3, 3, 3>, dilation = "
           "array<i64: 1, 1, 1>, accumulation = \"canonical_f32\"} : ($S, $WC) -> $S");
      prev = name;
    }
    g.output(prev, "$S");
    Expected<Runtime> rt = g.runtime();
    QVERIFY2(rt, rt ? "" : rt.message().c_str());
    runtime::RandomInputOptions options;
    options.points = 20000;
    Expected<std::vector<NamedTensor>> inputs = runtime::randomInputs(rt->plan(), options);
    QVERIFY(inputs);
    runtime::RuntimeInputs in;
    in.named = *inputs;
    QVERIFY(rt->start(in));
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      rt->cancel();
    });
    const Status s = rt->run();
    canceller.join();
    QVERIFY2(!s, "the run finished before the cancel");
    RT_CHECK(containsAll(s.message(), {"cancelled", "'lattice.", "graph.mlir:"}));
    QVERIFY(s.code() == ErrorCode::Cancelled);
    QVERIFY(rt->currentOp() < static_cast<int>(rt->plan().ops.size()));
    QVERIFY(!rt->finished());
    // A new start runs again (the cancel is cleared).
    QVERIFY(rt->start(in));
    QVERIFY(rt->runUntil(2));
    QCOMPARE(rt->currentOp(), 2);
  }
};

QTEST_GUILESS_MAIN(TestRuntimeApi)
#include "tst_runtime_api.moc"
