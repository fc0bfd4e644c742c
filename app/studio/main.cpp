// lattice-studio: the desktop application. `lattice-studio [PATH | example:NAME]` opens a model
// (default example:sparse_resunet42), or an artifact when PATH is an artifact directory or a
// .mlir file; `--compare A B` opens two artifacts side by side; `--step N` steps the interpreter
// N nodes once a model is loaded; `--screenshot FILE.png` waits for the graph layout(s), renders
// the main window into the PNG and exits (0, or 1 with a message when loading, tracing or
// writing fails). A comparison's screenshot shows it at work: the first weight difference is
// selected (its details and Δ histogram) and both graphs are shown at 100% around its op.
// `--shortcuts` opens Help ▸ Keyboard Shortcuts (with --screenshot, that window is rendered:
// docs/shortcuts.png). `--quantize-analyze` runs the Quantization dock's analysis once loaded
// (docs/quantization.png).

#include "MainWindow.h"
#include "StudioIcons.h"
#include "StudioSession.h"
#include "artifactview/ArtifactDocument.h"
#include "artifactview/ArtifactGraphView.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "artifactview/CompareArtifactsDialog.h"
#include "artifactview/CompareView.h"
#include "artifactview/DiffListModel.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "numeric/NumericRun.h"
#include "help/HelpDialogs.h"
#include "panels/Panels.h"
#include "quant/QuantizationState.h"

#include <QApplication>
#include <QTabBar>
#include <QCommandLineParser>
#include <QFile>
#include <QScreen>
#include <QHash>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>

using lattice::studio::ArtifactGraphView;
using lattice::studio::ArtifactOverlay;
using lattice::studio::ArtifactRunBar;
using lattice::studio::CompareArtifactsDialog;
using lattice::studio::CompareView;
using lattice::studio::GraphWidget;
using lattice::studio::MainWindow;
using lattice::studio::NumericRun;
using lattice::studio::QuantizationState;
using lattice::studio::StudioSession;

namespace {

/// The process's peak resident set (VmHWM of /proc/self/status) in MB, 0 when unknown.
double peakRssMb() {
  QFile status(QStringLiteral("/proc/self/status"));
  if (!status.open(QIODevice::ReadOnly)) return 0.0;
  for (const QByteArray& line : status.readAll().split('\n'))
    if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
  return 0.0;
}

void fail(const QString& message) {
  std::fprintf(stderr, "lattice-studio: %s\n", qPrintable(message));
  QCoreApplication::exit(1);
}

/// For a comparison's screenshot: selects the first weight difference (else the first op
/// difference), shows side A at 100% around the selected op (side B follows) and calls `done`
/// once the Δ histogram is painted (or at once when there is none).
void stageComparison(CompareView* view, const std::function<void()>& done) {
  using lattice::studio::DiffListModel;
  const DiffListModel* list = view->differences();
  int row = -1;
  for (int r = 0; r < list->rowCount() && row < 0; ++r)
    if (list->rows()[r].kind == DiffListModel::Kind::Weight) row = r;
  if (row < 0 && list->rowCount() > 0) row = 0;
  if (row < 0) {
    done();
    return;
  }
  view->selectDifference(row); // a weight selects the op that stores it on both sides
  const int node = view->graphA()->selectedNode();
  view->graphA()->view()->setZoom(1.0);
  if (node >= 0) view->graphA()->centerOnNode(node);
  if (view->isHistogramRunning())
    QObject::connect(view, &CompareView::histogramUpdated, view, done, Qt::SingleShotConnection);
  else
    done();
}

/// The command line: options and their help text.
struct StudioOptions {
  QCommandLineOption compare{
      QStringLiteral("compare"),
      QStringLiteral("compare the two artifacts given as arguments (A before, B after)")};
  QCommandLineOption screenshot{
      QStringLiteral("screenshot"),
      QStringLiteral("render the main window into FILE.png once laid out, then exit"),
      QStringLiteral("FILE.png")};
  QCommandLineOption step{QStringLiteral("step"),
                          QStringLiteral("step the interpreter N nodes after loading"),
                          QStringLiteral("N")};
  QCommandLineOption run{
      QStringLiteral("run"),
      QStringLiteral("Debug > Run on Inputs once loaded (after --step; an artifact runs on the inputs and "
                     "golden its run bar picks); with --screenshot, the window is rendered when the run ended")};
  QCommandLineOption inputs{
      QStringLiteral("inputs"),
      QStringLiteral("run a model on this inputs.safetensors (Debug > Run Inputs > File, as lattice-cli run --inputs "
                     "reads it); with --run, the studio prints the run's time and peak memory when it ends"),
      QStringLiteral("FILE")};
  QCommandLineOption overlay{QStringLiteral("overlay"),
                             QStringLiteral("colour the model graph (View > Overlay) or an artifact's op graph by 'time' or "
                                            "'accuracy'; the model graph also by 'quantization' (the plan's format per "
                                            "layer) or 'quant-sensitivity'"),
                             QStringLiteral("MODE")};
  QCommandLineOption select{QStringLiteral("select"), QStringLiteral("select node NAME once loaded"),
                            QStringLiteral("NAME")};
  QCommandLineOption panel{
      QStringLiteral("panel"),
      QStringLiteral("with --screenshot, bring the panel titled TITLE to the front of its dock group ('Node Ranking', 'Breakpoints', "
                     "'MLIR', ...); may be repeated"),
      QStringLiteral("TITLE")};
  QCommandLineOption quantizeAnalyze{
      QStringLiteral("quantize-analyze"),
      QStringLiteral("Debug > Analyze Quantization once loaded (the Quantization dock, on the run inputs); with "
                     "--screenshot, the window is rendered when the analysis ended")};
  QCommandLineOption shortcuts{
      QStringLiteral("shortcuts"),
      QStringLiteral("open Help > Keyboard Shortcuts once loaded (with --screenshot, that window is rendered)")};

  void describe(QCommandLineParser& parser) const {
    parser.setApplicationDescription(
        QStringLiteral("Lattice Studio: inspect, step through and export lattice lowerings"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("model"),
        QStringLiteral("an .ltfx directory or example:NAME (default example:sparse_resunet42), or an "
                       "artifact directory / .mlir file to inspect. A TorchScript .pt file is read "
                       "by LibTorch's loader, which crafted files can crash: open only trusted ones"));
    parser.addOption(screenshot);
    parser.addOption(step);
    parser.addOption(compare);
    parser.addOption(shortcuts);
    parser.addOption(run);
    parser.addOption(inputs);
    parser.addOption(overlay);
    parser.addOption(select);
    parser.addOption(panel);
    parser.addOption(quantizeAnalyze);
  }
};

void setApplicationInfo() {
  QCoreApplication::setOrganizationName(QStringLiteral("Lattice"));
  QCoreApplication::setApplicationName(QStringLiteral("Lattice Studio"));
  QCoreApplication::setApplicationVersion(QStringLiteral("0.1.0"));
}

/// --help and --version need no display: they are answered before the GUI starts.
bool asksForHelpOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    if (arg == "--help" || arg == "-h" || arg == "-?" || arg == "--help-all" || arg == "--version" ||
        arg == "-v")
      return true;
  }
  return false;
}

} // namespace

int main(int argc, char** argv) {
  const StudioOptions options;
  if (asksForHelpOrVersion(argc, argv)) {
    QCoreApplication core(argc, argv);
    setApplicationInfo();
    QCommandLineParser parser;
    options.describe(parser);
    parser.process(core); // prints and exits
    return 0;
  }
  QApplication app(argc, argv);
  setApplicationInfo();
  // The installed lattice-studio.desktop names the window's application (the Wayland app id).
  QGuiApplication::setDesktopFileName(QStringLiteral("lattice-studio"));
  QApplication::setWindowIcon(lattice::studio::icons::application());

  QCommandLineParser parser;
  options.describe(parser);
  const QCommandLineOption& compare = options.compare;
  const QCommandLineOption& screenshot = options.screenshot;
  const QCommandLineOption& step = options.step;
  parser.process(app);

  const QStringList positional = parser.positionalArguments();
  const bool comparing = parser.isSet(compare);
  if (comparing && positional.size() != 2) {
    std::fprintf(stderr, "lattice-studio: --compare expects two artifacts, got %lld\n",
                 static_cast<long long>(positional.size()));
    return 2;
  }
  if (!comparing && positional.size() > 1) {
    std::fprintf(stderr, "lattice-studio: expected at most one model, got %lld\n",
                 static_cast<long long>(positional.size()));
    return 2;
  }
  const QString reference =
      positional.isEmpty() ? QStringLiteral("example:sparse_resunet42") : positional.front();
  int steps = 0;
  if (parser.isSet(step)) {
    bool ok = false;
    steps = parser.value(step).toInt(&ok);
    if (!ok || steps < 0) {
      std::fprintf(stderr, "lattice-studio: --step expects a non-negative integer, got '%s'\n",
                   qPrintable(parser.value(step)));
      return 2;
    }
  }
  const QString screenshotPath = parser.value(screenshot);
  // Screenshots are reproducible: they neither see nor change the user's saved window layout.
  if (!screenshotPath.isEmpty())
    QCoreApplication::setApplicationName(QStringLiteral("Lattice Studio Screenshot"));

  MainWindow window; // with its panels as docks and the export dialog behind File ▸ Export Artifact…
  StudioSession* session = window.session();
  GraphWidget* graph = window.graphWidget();

  const QString overlayMode = parser.value(options.overlay);
  const QHash<QString, QString> overlayActions{{QStringLiteral("time"), QStringLiteral("view.overlayTime")},
                                               {QStringLiteral("accuracy"), QStringLiteral("view.overlayAccuracy")},
                                               {QStringLiteral("quantization"), QStringLiteral("view.overlayQuantization")},
                                               {QStringLiteral("quant-sensitivity"),
                                                QStringLiteral("view.overlayQuantSensitivity")}};
  if (!overlayMode.isEmpty() && !overlayActions.contains(overlayMode)) {
    std::fprintf(stderr,
                 "lattice-studio: --overlay expects 'time', 'accuracy', 'quantization' or 'quant-sensitivity', got "
                 "'%s'\n",
                 qPrintable(overlayMode));
    return 2;
  }
  const bool artifactArgument =
      !comparing && positional.size() == 1 && lattice::studio::isArtifactPath(positional.front());
  if (!overlayMode.isEmpty() && !artifactArgument) // an artifact's overlay is its run bar's (below)
    window.action(overlayActions.value(overlayMode))->trigger();
  const bool runOnInputs = parser.isSet(options.run);
  const bool quantizeAnalyze = parser.isSet(options.quantizeAnalyze);
  QuantizationState* quantization = QuantizationState::of(session);
  const QString selectNode = parser.value(options.select);
  const QString inputsFile = parser.value(options.inputs);
  if (runOnInputs && !inputsFile.isEmpty()) // a scripted run: say what it cost, as lattice-cli run does
    QObject::connect(window.numericRun(), &NumericRun::stateChanged, &app, [&window](NumericRun::State s) {
      if (s != NumericRun::State::Finished || !window.numericRun()->lowered()) return;
      std::printf("lattice-studio: ran %d ops in %.1f ms; peak RSS %.0f MB\n", window.numericRun()->opsTotal(),
                  window.numericRun()->runMs(), peakRssMb());
      std::fflush(stdout);
    });
  QObject::connect(session, &StudioSession::modelLoaded, &window, [&window, session, steps, runOnInputs, selectNode, screenshotPath, inputsFile, quantizeAnalyze] {
    if (!inputsFile.isEmpty()) {
      NumericRun::InputChoice choice = window.numericRun()->inputChoice();
      choice.source = NumericRun::InputSource::File;
      choice.file = inputsFile;
      window.numericRun()->setInputChoice(choice);
    }
    if (steps > 0) {
      if (!screenshotPath.isEmpty()) window.numericRun()->setStepping(true); // the picture shows values
      session->startInterpreter();
      for (int i = 0; i < steps && session->interpreterState() == StudioSession::InterpreterState::Paused; ++i)
        session->step();
    }
    if (runOnInputs) window.numericRun()->run();
    if (quantizeAnalyze) QuantizationState::of(session)->analyze(); // what Debug ▸ Analyze Quantization does
    if (!selectNode.isEmpty()) session->selectNode(selectNode);
  });

  // The artifact graphs a screenshot waits for (none: the model graph).
  QList<ArtifactGraphView*> artifactGraphs;
  CompareView* compareView = nullptr;
  lattice::studio::ArtifactView* artifactView = nullptr;
  if (comparing) {
    CompareView* view = window.compareArtifacts(positional[0], positional[1]);
    compareView = view;
    artifactGraphs << view->graphA() << view->graphB();
    QObject::connect(view, &CompareView::compareFailed, &app, [](const QString& m) { fail(m); });
  } else if (artifactArgument) {
    window.openArtifact(positional.front());
    artifactView = window.artifactView(positional.front());
    artifactGraphs << artifactView->graphView();
    lattice::studio::ArtifactView* view = artifactView;
    if (!screenshotPath.isEmpty())
      QObject::connect(view, &lattice::studio::ArtifactView::documentLoaded, &app, [view] {
        if (!view->document()->opGraph) fail(view->document()->loadError); // no graph will be laid out
      });
    // --run: the artifact's run bar (inputs and golden as it picks them); --overlay colours its ops.
    if (!overlayMode.isEmpty())
      view->runBar()->setOverlay(overlayMode == QLatin1String("time") ? ArtifactOverlay::Time
                                                                      : ArtifactOverlay::Accuracy);
    if (runOnInputs)
      QObject::connect(view, &lattice::studio::ArtifactView::documentLoaded, view,
                       [view] { view->runBar()->run(); }, Qt::SingleShotConnection);
  }

  const bool showShortcuts = parser.isSet(options.shortcuts);
  // The panels in front of their tab groups: what ran (the Values dock), then those asked for.
  QStringList frontPanels = parser.values(options.panel);
  if (parser.isSet(options.run) || steps > 0) frontPanels.prepend(QStringLiteral("Values"));
  if (quantizeAnalyze && !frontPanels.contains(QStringLiteral("Quantization"))) frontPanels << QStringLiteral("Quantization");
  auto grabAndExit = [&window, screenshotPath, showShortcuts, frontPanels, quantization] {
    if (showShortcuts) window.showShortcuts();
    for (QTabBar* bar : window.findChildren<QTabBar*>())
      for (int i = 0; i < bar->count(); ++i)
        if (frontPanels.contains(bar->tabText(i))) bar->setCurrentIndex(i);
    // Let the view settle (overlays, minimap render, numeric stepping's ops) before grabbing.
    auto* settle = new QTimer(&window);
    settle->setInterval(600);
    QObject::connect(settle, &QTimer::timeout, &window, [&window, settle, screenshotPath, showShortcuts, quantization] {
      if (window.numericRun()->isRunning()) return; // stepping's ops still run: look again later
      if (quantization && quantization->isBusy()) return; // the plan is still measured
      settle->stop();
      QWidget* shown = showShortcuts ? static_cast<QWidget*>(window.shortcutsDialog()) : &window;
      if (!shown->grab().save(screenshotPath, "PNG")) {
        fail(QStringLiteral("cannot write '%1'").arg(screenshotPath));
        return;
      }
      QCoreApplication::exit(0);
    });
    settle->start();
  };
  if (!screenshotPath.isEmpty() && !artifactGraphs.isEmpty()) {
    // The grab waits for every layout and, with --run on an artifact, for its run to end.
    const bool artifactRun = artifactView && runOnInputs;
    auto pending = std::make_shared<int>(artifactGraphs.size() + (artifactRun ? 1 : 0));
    auto oneDone = [pending, grabAndExit, compareView] {
      if (--*pending != 0) return;
      if (compareView)
        stageComparison(compareView, grabAndExit); // the graphs are laid out after the diff
      else
        grabAndExit();
    };
    for (ArtifactGraphView* g : std::as_const(artifactGraphs)) {
      QObject::connect(g, &ArtifactGraphView::layoutFinished, &app, oneDone);
      QObject::connect(g, &ArtifactGraphView::layoutFailed, &app, [](const QString& m) { fail(m); });
    }
    if (artifactRun)
      QObject::connect(artifactView->runBar(), &ArtifactRunBar::runningChanged, &app, [oneDone](bool running) {
        if (!running) oneDone();
      });
    QTimer::singleShot(300000, &app, [] { fail(QStringLiteral("timed out waiting for the layout")); });
  } else if (!screenshotPath.isEmpty()) {
    QObject::connect(session, &StudioSession::modelLoadFailed, &app, [](const QString& m) { fail(m); });
    QObject::connect(session, &StudioSession::traceFailed, &app, [](const QString& m) { fail(m); });
    QObject::connect(graph, &GraphWidget::layoutFailed, &app, [](const QString& m) { fail(m); });
    // The grab waits for the layout and, with --run, for the run to end.
    auto pending = std::make_shared<int>(1 + (runOnInputs ? 1 : 0) + (quantizeAnalyze ? 1 : 0));
    auto oneDone = [pending, grabAndExit] {
      if (--*pending == 0) grabAndExit();
    };
    if (quantizeAnalyze && quantization) {
      auto analysed = std::make_shared<bool>(false);
      QObject::connect(quantization, &QuantizationState::jobChanged, &app, [quantization, analysed, oneDone] {
        if (*analysed || quantization->isBusy()) return;
        if (!quantization->lastError().isEmpty()) fail(quantization->lastError());
        if (!quantization->hasPlan()) return; // not started yet
        *analysed = true;
        oneDone();
      });
    }
    QObject::connect(graph, &GraphWidget::layoutFinished, &app, oneDone, Qt::SingleShotConnection);
    if (runOnInputs)
      QObject::connect(window.numericRun(), &NumericRun::stateChanged, &app, [oneDone](NumericRun::State s) {
        if (s == NumericRun::State::Finished || s == NumericRun::State::Failed) oneDone();
      });
    QTimer::singleShot(300000, &app, [] { fail(QStringLiteral("timed out waiting for the layout")); });
  }

  if (!screenshotPath.isEmpty()) window.setGeometry(QGuiApplication::primaryScreen()->availableGeometry());
  window.show();
  if (artifactGraphs.isEmpty()) window.openModel(reference);
  if (showShortcuts && screenshotPath.isEmpty()) window.showShortcuts();
  return app.exec();
}
