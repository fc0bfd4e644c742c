// lattice-studio-bench: timings of the studio's widgets on large inputs, with the event loop's
// longest stall (the longest gap between the ticks of a 5 ms timer, less 5 ms) where the UI is
// meant to stay responsive. Run on demand (QT_QPA_PLATFORM=offscreen works); it is not a test:
// the tests check what these paths do, this prints how long they take.
//
//   lattice-studio-bench --graph [MODEL]     open MODEL (example:chain:10000) in the model graph
//                                           (target < 3 s) and expand its last collapsed group
//                                           (target < 1 s)
//   lattice-studio-bench --artifact DIR      open an exported artifact (e.g. of chain:10000) in an
//                                           artifact tab: document, graph, statistics, text,
//                                           then one paint at the opening zoom and one fitted
//   lattice-studio-bench --run [MODEL]       Debug ▸ Continue over MODEL (example:chain:1000) in
//                                           the main window, with its panels

#include "MainWindow.h"
#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactOpGraph.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/MlirTextView.h"
#include "artifactview/WeightsTableModel.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

using namespace lattice::studio;

namespace {

/// Spins the event loop until `done()` holds or `timeoutMs` passed; returns `done()`.
bool spinUntil(const std::function<bool()>& done, int timeoutMs = 600000) {
  if (done()) return true;
  QEventLoop loop;
  QTimer poll;
  poll.setInterval(10);
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (done()) loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  poll.start();
  loop.exec();
  return done();
}

/// The longest gap between ticks of a 5 ms timer while it runs, less the interval.
class StallProbe {
public:
  StallProbe() {
    m_ticker.setTimerType(Qt::PreciseTimer);
    m_ticker.setInterval(kIntervalMs);
    QObject::connect(&m_ticker, &QTimer::timeout,
                     [this] { m_longest = std::max(m_longest, m_sinceTick.restart() - kIntervalMs); });
  }
  void start() {
    m_longest = 0;
    m_sinceTick.start();
    m_ticker.start();
  }
  qint64 stop() {
    m_ticker.stop();
    return std::max<qint64>(0, m_longest);
  }

private:
  static constexpr qint64 kIntervalMs = 5;
  QTimer m_ticker;
  QElapsedTimer m_sinceTick;
  qint64 m_longest = 0;
};

bool openModel(StudioSession& session, const QString& reference) {
  bool loaded = false;
  QString failure;
  QObject::connect(&session, &StudioSession::modelLoaded, [&] { loaded = true; });
  QObject::connect(&session, &StudioSession::modelLoadFailed, [&](const QString& m) { failure = m; });
  session.openModel(reference);
  spinUntil([&] { return loaded || !failure.isEmpty(); });
  if (!loaded)
    std::fprintf(stderr, "lattice-studio-bench: %s: %s\n", qPrintable(reference),
                 failure.isEmpty() ? "did not load" : qPrintable(failure));
  return loaded;
}

int benchGraph(const QString& reference) {
  StudioSession session;
  GraphWidget widget(&session);
  widget.resize(1200, 800);
  widget.show();
  int laidOut = 0;
  QString failure;
  QObject::connect(&widget, &GraphWidget::layoutFinished, [&] { ++laidOut; });
  QObject::connect(&widget, &GraphWidget::layoutFailed, [&](const QString& m) { failure = m; });
  QElapsedTimer clock;
  StallProbe stall;
  clock.start();
  stall.start();
  if (!openModel(session, reference)) return 1;
  const qint64 loaded = clock.elapsed();
  if (!spinUntil([&] { return laidOut > 0 || !failure.isEmpty(); }) || laidOut == 0) {
    std::fprintf(stderr, "lattice-studio-bench: layout: %s\n", qPrintable(failure));
    return 1;
  }
  const qint64 open = clock.elapsed();
  const qint64 openStall = stall.stop();
  std::printf("%s: open to an interactive view %lld ms (target 3000; loading and tracing %lld ms), "
              "%lld items, longest stall %lld ms\n",
              qPrintable(reference), static_cast<long long>(open), static_cast<long long>(loaded),
              static_cast<long long>(widget.scene()->nodeItems().size()), static_cast<long long>(openStall));

  NodeItem* collapsed = nullptr;
  for (NodeItem* item : widget.scene()->nodeItems())
    if (item->isGroup()) collapsed = item; // the last one: deep in the graph
  if (!collapsed) {
    std::printf("no collapsed group to expand\n");
    return 0;
  }
  const QString path = collapsed->key();
  laidOut = 0;
  clock.restart();
  stall.start();
  widget.expandGroup(path);
  if (!spinUntil([&] { return laidOut > 0 || !failure.isEmpty(); }) || laidOut == 0) {
    std::fprintf(stderr, "lattice-studio-bench: expanding '%s': %s\n", qPrintable(path), qPrintable(failure));
    return 1;
  }
  std::printf("expanding '%s': %lld ms (target 1000), %lld items, longest stall %lld ms\n", qPrintable(path),
              static_cast<long long>(clock.elapsed()),
              static_cast<long long>(widget.scene()->nodeItems().size()),
              static_cast<long long>(stall.stop()));
  return 0;
}

int benchArtifact(const QString& dir) {
  ArtifactView view;
  view.resize(1400, 900);
  view.show();
  bool loaded = false;
  bool laid = false;
  QObject::connect(&view, &ArtifactView::documentLoaded, [&] { loaded = true; });
  QObject::connect(view.graphView(), &ArtifactGraphView::layoutFinished, [&] { laid = true; });
  QElapsedTimer clock;
  StallProbe stall;
  clock.start();
  stall.start();
  view.open(dir);
  if (!spinUntil([&] { return loaded; })) {
    std::fprintf(stderr, "lattice-studio-bench: %s did not load\n", qPrintable(dir));
    return 1;
  }
  const qint64 document = clock.elapsed();
  if (!spinUntil([&] { return laid; })) {
    std::fprintf(stderr, "lattice-studio-bench: %s: no layout\n", qPrintable(dir));
    return 1;
  }
  const qint64 graph = clock.elapsed();
  spinUntil([&] { return !view.weightsModel()->isComputing(); });
  const qint64 weights = clock.elapsed();
  spinUntil([&] { return !view.mlirView()->isLoadingText(); });
  const qint64 text = clock.elapsed();
  const qint64 longest = stall.stop();
  std::printf("%zu nodes: document %lld ms, graph %lld ms, statistics %lld ms, text %lld ms, "
              "longest stall %lld ms\n",
              view.document() && view.document()->opGraph ? view.document()->opGraph->nodes().size()
                                                          : std::size_t(0),
              static_cast<long long>(document), static_cast<long long>(graph),
              static_cast<long long>(weights), static_cast<long long>(text), static_cast<long long>(longest));
  clock.restart();
  view.graphView()->view()->viewport()->grab();
  std::printf("one paint at the opening zoom: %lld ms\n", static_cast<long long>(clock.elapsed()));
  view.graphView()->fitToView();
  clock.restart();
  view.graphView()->view()->viewport()->grab();
  std::printf("one paint of the whole graph fitted: %lld ms\n", static_cast<long long>(clock.elapsed()));
  return 0;
}

int benchRun(const QString& reference) {
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  StudioSession* session = window.session();
  bool loaded = false;
  QString failure;
  QObject::connect(session, &StudioSession::modelLoaded, [&] { loaded = true; });
  QObject::connect(session, &StudioSession::modelLoadFailed, [&](const QString& m) { failure = m; });
  window.openModel(reference);
  if (!spinUntil([&] { return loaded || !failure.isEmpty(); }) || !loaded) {
    std::fprintf(stderr, "lattice-studio-bench: %s: %s\n", qPrintable(reference),
                 failure.isEmpty() ? "did not load" : qPrintable(failure));
    return 1;
  }
  window.action(QStringLiteral("debug.restart"))->trigger(); // paused on the first node
  int slices = 0;
  QObject::connect(session, &StudioSession::interpreterStepped, [&] { ++slices; });
  QElapsedTimer clock;
  StallProbe stall;
  clock.start();
  stall.start();
  window.action(QStringLiteral("debug.continue"))->trigger();
  spinUntil([&] { return !session->isRunning(); });
  const qint64 elapsed = clock.elapsed();
  const qint64 longest = stall.stop();
  std::printf("%s: %d nodes run in %lld ms in %d slices; longest stall %lld ms\n", qPrintable(reference),
              session->totalNodes(), static_cast<long long>(elapsed), slices,
              static_cast<long long>(longest));
  return 0;
}

int usage() {
  std::fprintf(stderr, "usage: lattice-studio-bench --graph [MODEL]\n"
                       "       lattice-studio-bench --artifact DIR\n"
                       "       lattice-studio-bench --run [MODEL]\n");
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // Window state goes to the benchmark's own settings, never the user's studio's.
  QCoreApplication::setOrganizationName(QStringLiteral("LatticeBench"));
  QCoreApplication::setApplicationName(QStringLiteral("lattice-studio-bench"));
  const QStringList args = QCoreApplication::arguments().mid(1);
  if (args.isEmpty() || args.size() > 2) return usage();
  const QString mode = args.front();
  const QString operand = args.size() > 1 ? args.at(1) : QString();
  if (mode == QLatin1String("--graph"))
    return benchGraph(operand.isEmpty() ? QStringLiteral("example:chain:10000") : operand);
  if (mode == QLatin1String("--artifact") && !operand.isEmpty()) return benchArtifact(operand);
  if (mode == QLatin1String("--run"))
    return benchRun(operand.isEmpty() ? QStringLiteral("example:chain:1000") : operand);
  return usage();
}
