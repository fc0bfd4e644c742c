// Numerics of whole models (lattice-artifact-validation.md sec. 10.5): SparseResNet21D and
// SparseResUNet42 lowered in memory (as lattice-cli run does: loadModel, prepareLowering,
// finishLowering, the builder's MLIR text and weights), run on runtime::randomInputs with 1000
// points in the default mode (f32 accumulation through the BLAS) and in Numerics::Exact (f64
// accumulation, one rounding per op). They must agree within 1e-5 relative, measured as the
// relative L2 error ‖default − exact‖ / ‖exact‖ of every output and every intermediate value
// (runtime::compareValues): element-wise relative error is meaningless for values that cancel to
// near zero after a batch norm, the L2 norm is not. Also on these models: the subm convs of a
// block share one kernel map (only the first conv on a support builds it), and the statistics of
// every conv agree with its kernel map (flops = 2·edges·C_in·C_out).

#include "RuntimeTestSupport.h"

#include "exec/LoweredRun.h"
#include "model/LoadModel.h"
#include "runtime/Compare.h"
#include "runtime/RandomInputs.h"

#include <QtTest/QtTest>

#include <map>
#include <tuple>

using namespace lattice;
using namespace lattice::rt;

namespace {

/// The model lowered in memory and opened as a runtime.
Expected<Runtime> lowered(const std::string& reference) {
  Expected<Model> model = loadModel(reference);
  if (!model) return model.error();
  Expected<PreparedLowering> lowering = prepareLowering(*model, ExportOptions{});
  if (!lowering) return lowering.error();
  if (Status s = finishLowering(*lowering); !s) return s.error();
  Expected<LoweredRun> run = runLowering(*lowering, reference);
  if (!run) return run.error();
  return std::move(run->runtime);
}

runtime::RuntimeInputs randomInputs(const Runtime& rt, std::int64_t points) {
  runtime::RandomInputOptions options;
  options.points = points;
  options.seed = 7;
  Expected<std::vector<NamedTensor>> tensors = runtime::randomInputs(rt.plan(), options);
  runtime::RuntimeInputs in;
  if (tensors) in.named = std::move(*tensors);
  return in;
}

} // namespace

class TestRuntimeNumerics : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void defaultAndExactAgree_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("sparse_resnet21d") << QString("example:sparse_resnet21d");
    QTest::newRow("sparse_resunet42") << QString("example:sparse_resunet42");
  }
  void defaultAndExactAgree() {
    QFETCH(QString, model);
    Expected<Runtime> fast = lowered(model.toStdString());
    QVERIFY2(fast, fast ? "" : fast.message().c_str());
    Expected<Runtime> exact = lowered(model.toStdString());
    QVERIFY2(exact, exact ? "" : exact.message().c_str());
    const runtime::RuntimeInputs in = randomInputs(*fast, 1000);
    QVERIFY(!in.named.empty());
    runtime::RuntimeOptions options;
    options.keepValues = true;
    QVERIFY(fast->start(in, options));
    Status s = fast->run();
    QVERIFY2(s, s ? "" : s.message().c_str());
    options.numerics = runtime::Numerics::Exact;
    QVERIFY(exact->start(in, options));
    s = exact->run();
    QVERIFY2(s, s ? "" : s.message().c_str());

    const runtime::RuntimePlan& plan = fast->plan();
    int compared = 0;
    double worst = 0;
    std::string worstName;
    for (std::size_t slot = 0; slot < plan.slotNames.size(); ++slot) {
      const runtime::RuntimeValue& a = fast->value(static_cast<int>(slot));
      const runtime::RuntimeValue& e = exact->value(static_cast<int>(slot));
      const bool data = std::holds_alternative<runtime::Tensor>(e) || std::holds_alternative<runtime::Sparse>(e);
      if (!data) continue;
      std::string problem;
      const runtime::Divergence d = runtime::compareValues(a, e, &problem);
      QVERIFY2(problem.empty(), ("%" + plan.slotNames[slot] + ": " + problem).c_str());
      QCOMPARE(d.nonFinite, std::int64_t(0));
      if (d.relL2 > worst) worst = d.relL2, worstName = plan.slotNames[slot];
      ++compared;
    }
    qInfo("%d values compared; worst relative L2 error %.3g at %%%s", compared, worst, worstName.c_str());
    QVERIFY2(worst <= 1e-5, ("relative L2 error " + std::to_string(worst) + " at %" + worstName).c_str());
    QVERIFY(compared > 50);
    // The outputs are among the values compared; they also exist and are non-trivial.
    for (const runtime::PlanOutput& o : plan.outputs) {
      const auto* out = std::get_if<runtime::Sparse>(&fast->value(o.slot));
      QVERIFY2(out && out->rows() > 0, o.abiName.c_str());
    }
  }

  // In one run every subm conv on a support that an earlier subm conv with the same kernel and
  // dilation already used reports no kernel-map time (the map came from the cache), and the first
  // one on each support builds it. Every conv's flops are 2·edges·C_in·C_out.
  void submConvsOfABlockShareTheirKernelMap_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("sparse_resnet21d") << QString("example:sparse_resnet21d");
    QTest::newRow("sparse_resunet42") << QString("example:sparse_resunet42");
  }
  void submConvsOfABlockShareTheirKernelMap() {
    QFETCH(QString, model);
    Expected<Runtime> rt = lowered(model.toStdString());
    QVERIFY2(rt, rt ? "" : rt.message().c_str());
    runtime::RuntimeOptions options;
    options.keepValues = true;
    QVERIFY(rt->start(randomInputs(*rt, 1000), options));
    const Status s = rt->run();
    QVERIFY2(s, s ? "" : s.message().c_str());
    const runtime::RuntimePlan& plan = rt->plan();
    std::map<std::tuple<const void*, std::string, std::string>, int> firstOnSupport;
    int subm = 0, shared = 0;
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
      const runtime::PlanOp& op = plan.ops[i];
      if (!isConv(op.kind)) continue;
      const auto& x = std::get<runtime::Sparse>(rt->value(op.operands[0]));
      const auto* w = std::get_if<runtime::WeightRef>(&rt->value(op.operands[1]));
      const auto& y = std::get<runtime::Sparse>(rt->value(op.results[0]));
      const runtime::OpStats& st = rt->stats(static_cast<int>(i));
      QVERIFY(w && st.ran);
      QCOMPARE(st.flops, 2.0 * static_cast<double>(st.edges) * static_cast<double>(x.channels) *
                             static_cast<double>(y.channels));
      if (op.kind != OpKind::SubmConv3d) continue;
      ++subm;
      const auto key = std::make_tuple(static_cast<const void*>(x.coords.get()), op.attr("kernel_size")->str(),
                                       op.attr("dilation")->str());
      const auto [it, isFirst] = firstOnSupport.emplace(key, static_cast<int>(i));
      if (isFirst) {
        QVERIFY2(st.kernelMapMs > 0.0, ("%" + op.name() + " built no map").c_str());
      } else {
        ++shared;
        QVERIFY2(st.kernelMapMs == 0.0, ("%" + op.name() + " rebuilt the map of %" +
                                         plan.ops[static_cast<std::size_t>(it->second)].name())
                                            .c_str());
      }
    }
    QVERIFY(subm > 8);
    QVERIFY2(shared >= subm / 2, (std::to_string(shared) + " of " + std::to_string(subm) + " shared").c_str());
  }
};

QTEST_GUILESS_MAIN(TestRuntimeNumerics)
#include "tst_runtime_numerics.moc"
