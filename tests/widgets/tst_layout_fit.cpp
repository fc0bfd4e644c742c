// Layouts that fit a 1600 × 1000 screen, at scale 1 and again at QT_SCALE_FACTOR=1.5 (the test
// runs itself a second time so): a long failure on the artifact tab's run bar never makes the
// window wider than the screen; the Inputs dialog opens showing its spin boxes whole, within the
// screen, and reopens at the size it was left at; the legend and the canvas follow a dark
// palette; on first start the legend and minimap cover no node and the Values dock keeps to a
// side panel's width; the values table shows the coordinates and the first features without a
// horizontal scroll bar.

#include "MainWindow.h"
#include "StudioSession.h"
#include "artifactview/ArtifactRun.h"
#include "artifactview/ArtifactView.h"
#include "graph/GraphLegend.h"
#include "graph/GraphMinimap.h"
#include "graph/GraphScene.h"
#include "graph/GraphView.h"
#include "graph/GraphWidget.h"
#include "graph/NodeItem.h"
#include "graph/NodeStyle.h"
#include "numeric/NumericRun.h"
#include "numeric/RunInputsEditor.h"
#include "numeric/ValueInspector.h"
#include "panels/InputSpecEditor.h"
#include "runtime/Runtime.h"

#include "WidgetTestSupport.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QScreen>
#include <QScrollBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QAction>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>

#include <cstdio>

using namespace lattice;
using namespace lattice::studio;
using namespace lattice::widgettest;

namespace {

/// With LATTICE_FIT_SHOTS=DIR, saves what `w` shows as DIR/NAME-SCALE.png (to look at).
void shot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LATTICE_FIT_SHOTS");
  if (dir.isEmpty()) return;
  const QString scale = qEnvironmentVariableIsSet("QT_SCALE_FACTOR") ? qEnvironmentVariable("QT_SCALE_FACTOR") : QStringLiteral("1");
  w->grab().save(dir + QLatin1Char('/') + name + QLatin1Char('-') + scale + QStringLiteral(".png"));
}

QRect screenRoom() {
  return QGuiApplication::primaryScreen()->availableGeometry();
}

QString conformanceArtifact(const QString& name) {
  return QStringLiteral(LATTICE_TEST_DATA_DIR "/conformance/models/") + name + QStringLiteral("/expected.lattice");
}

QPalette darkPalette() {
  QPalette p;
  p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
  p.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
  p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
  p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
  p.setColor(QPalette::Text, QColor(0xf0, 0xf0, 0xf0));
  p.setColor(QPalette::Mid, QColor(0x55, 0x55, 0x55));
  p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
  p.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
  return p;
}

/// The lightness of the lightest and darkest pixels of `image` inside `area`.
std::pair<int, int> lightnessRange(const QImage& image, const QRect& area) {
  int lo = 255, hi = 0;
  for (int y = area.top(); y <= area.bottom(); ++y)
    for (int x = area.left(); x <= area.right(); ++x) {
      const int l = image.pixelColor(x, y).lightness();
      lo = std::min(lo, l);
      hi = std::max(hi, l);
    }
  return {lo, hi};
}

} // namespace

class TestLayoutFit : public QObject {
  Q_OBJECT

private Q_SLOTS:
  void initTestCase();
  void init() { QSettings().clear(); }
  void runBarFailureKeepsTheWindowOnScreen();
  void inputsDialogShowsItsFields();
  void legendAndCanvasFollowThePalette();
  void firstStartLeavesTheGraphUncovered();
  void valuesTableShowsCoordinatesAndFeatures();
  void statusMessageKeepsItsRoom();
};

void TestLayoutFit::initTestCase() {
  isolateSettings(QStringLiteral("tst_layout_fit"));
  qInfo("screen %dx%d, available %dx%d, scale %s", QGuiApplication::primaryScreen()->geometry().width(),
        QGuiApplication::primaryScreen()->geometry().height(), screenRoom().width(), screenRoom().height(),
        qgetenv("QT_SCALE_FACTOR").isEmpty() ? "1" : qgetenv("QT_SCALE_FACTOR").constData());
}

void TestLayoutFit::runBarFailureKeepsTheWindowOnScreen() {
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(window.width() <= screenRoom().width());
  window.openArtifact(conformanceArtifact(QStringLiteral("sparse_classifier")));
  ArtifactView* view = window.artifactViews().value(0);
  QVERIFY(view);
  QVERIFY(waitFor([&] { return view->document() && !view->isLoading(); }));

  // An inputs file that does not exist, under a long path: the failure names it.
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  QString deep = dir.path();
  for (int i = 0; i < 6; ++i) deep += QStringLiteral("/a-rather-long-folder-name-that-goes-on-%1").arg(i);
  const QString missing = deep + QStringLiteral("/inputs.safetensors");
  ArtifactRunBar* bar = view->runBar();
  bar->setInputsFile(missing);
  bar->run();
  QVERIFY(waitFor([&] { return !bar->isRunning(); }));
  QVERIFY(bar->result() && !bar->result()->error.empty());
  auto* status = bar->findChild<QLabel*>(QStringLiteral("artifactRunStatus"));
  QVERIFY(status);
  QVERIFY2(status->text().contains(QStringLiteral("Failed")), qPrintable(status->text()));
  // The text is longer than the screen is wide: it is elided, never a reason for a wider window.
  QVERIFY(status->fontMetrics().horizontalAdvance(status->text()) > 0);
  QVERIFY2(window.minimumSizeHint().width() <= screenRoom().width(),
           qPrintable(QStringLiteral("minimum width %1 on a screen of %2")
                          .arg(window.minimumSizeHint().width())
                          .arg(screenRoom().width())));
  QTest::qWait(50);
  QVERIFY(window.frameGeometry().width() <= screenRoom().width() + 2);
  QVERIFY2(status->toolTip().contains(QStringLiteral("inputs.safetensors")), qPrintable(status->toolTip()));
  shot(&window, QStringLiteral("artifact-failed"));

  // Back on the model tab, the side panels keep a usable width.
  window.tabs()->setCurrentIndex(0);
  QTest::qWait(50);
  QVERIFY(window.minimumSizeHint().width() <= screenRoom().width());
}

void TestLayoutFit::inputsDialogShowsItsFields() {
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(openAndWait(*window.session(), QStringLiteral("example:chain:3")));
  InputSpecDialog* dialog = showInputSpecDialog(window.session(), &window, true);
  QVERIFY(dialog);
  QVERIFY(QTest::qWaitForWindowExposed(dialog));
  QTest::qWait(50);
  const QRect room = screenRoom();
  QVERIFY2(dialog->frameGeometry().width() <= room.width() && dialog->frameGeometry().height() <= room.height(),
           qPrintable(QStringLiteral("%1x%2").arg(dialog->frameGeometry().width()).arg(dialog->frameGeometry().height())));
  RunInputsEditor* values = dialog->runInputs();
  QVERIFY(values);
  for (const char* name : {"points", "seed", "batch"}) {
    auto* box = values->findChild<QSpinBox*>(QString::fromLatin1(name));
    QVERIFY(box);
    QVERIFY2(box->height() >= box->sizeHint().height() && box->width() >= box->minimumSizeHint().width(),
             qPrintable(QStringLiteral("%1: %2x%3, hint %4x%5")
                            .arg(QLatin1String(name))
                            .arg(box->width())
                            .arg(box->height())
                            .arg(box->sizeHint().width())
                            .arg(box->sizeHint().height())));
  }
  shot(dialog, QStringLiteral("inputs-dialog"));
  // Closed and opened again: the size the user left it at.
  const QSize wanted = dialog->size() + QSize(40, 30);
  dialog->resize(wanted);
  QTest::qWait(20);
  const QSize left = dialog->size();
  dialog->close();
  QTest::qWait(20);
  InputSpecDialog* again = showInputSpecDialog(window.session(), &window);
  QVERIFY(QTest::qWaitForWindowExposed(again));
  QCOMPARE(again->size(), left);
  again->close();
}

void TestLayoutFit::legendAndCanvasFollowThePalette() {
  const QPalette original = QApplication::palette();
  for (const bool dark : {false, true}) {
    QApplication::setPalette(dark ? darkPalette() : original);
    QCOMPARE(palette::dark(), dark);
    QCOMPARE(palette::background().lightness() < 128, dark);
    GraphLegend legend;
    legend.resize(legend.sizeHint());
    const QImage image = legend.grab().toImage();
    // The title row ("Legend") has no swatch: only the card and the text.
    const QRect title(10, 9, 30, QFontMetrics(legend.font()).height() - 2);
    const auto [lo, hi] = lightnessRange(image, title.intersected(image.rect()));
    const int card = image.pixelColor(image.width() - 4, image.height() / 2).lightness();
    if (dark) {
      QVERIFY2(card < 80, qPrintable(QString::number(card)));
      QVERIFY2(hi > 150, qPrintable(QString::number(hi))); // light text on the dark card
      if (qEnvironmentVariableIsSet("LATTICE_FIT_SHOTS")) { // the whole window, to look at
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy laidOut(window.graphWidget(), &GraphWidget::layoutFinished);
        window.openModel(QStringLiteral("example:sparse_resnet21d"));
        QVERIFY(waitFor([&] { return !laidOut.isEmpty(); }, 120000));
        QTest::qWait(300);
        shot(&window, QStringLiteral("dark"));
      }
    } else {
      QVERIFY2(card > 200, qPrintable(QString::number(card)));
      QVERIFY2(lo < 110, qPrintable(QString::number(lo))); // dark text on the light card
    }
  }
  QApplication::setPalette(original);
}

void TestLayoutFit::firstStartLeavesTheGraphUncovered() {
  MainWindow window; // no saved layout (init cleared the settings)
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QSignalSpy laidOut(window.graphWidget(), &GraphWidget::layoutFinished);
  window.openModel(QStringLiteral("example:sparse_resnet21d"));
  QVERIFY(waitFor([&] { return !laidOut.isEmpty(); }, 120000));
  QTest::qWait(300); // the fit after the layout, the overlays placed
  GraphView* view = window.graphWidget()->view();
  const QRect viewport = view->viewport()->geometry(); // in the view's coordinates, as the overlays
  QList<QRect> overlays;
  for (QWidget* overlay : {static_cast<QWidget*>(view->legend()), static_cast<QWidget*>(view->minimap())})
    if (overlay->isVisible()) overlays << overlay->geometry();
  QVERIFY(!overlays.isEmpty());
  int nodes = 0;
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* node = dynamic_cast<NodeItem*>(item);
    if (!node || !node->isVisible()) continue;
    const QRect box =
        view->mapFromScene(node->sceneBoundingRect()).boundingRect().translated(viewport.topLeft());
    if (!box.intersects(viewport)) continue;
    ++nodes;
    for (const QRect& overlay : overlays)
      QVERIFY2(!box.intersects(overlay), qPrintable(QStringLiteral("%1 under an overlay").arg(node->toolTip().left(40))));
  }
  QVERIFY(nodes > 0);
  shot(&window, QStringLiteral("first-start"));

  // The Values dock is a side panel, not half the window.
  auto* values = window.findChild<QDockWidget*>(QStringLiteral("valuesDock"));
  QVERIFY(values);
  for (QDockWidget* dock : window.findChildren<QDockWidget*>())
    if (dock->isVisible() && window.dockWidgetArea(dock) == Qt::RightDockWidgetArea)
      QVERIFY2(dock->width() <= window.width() / 3,
               qPrintable(QStringLiteral("%1: %2 of %3").arg(dock->objectName()).arg(dock->width()).arg(window.width())));
  QVERIFY2(window.graphWidget()->width() >= window.width() * 2 / 5,
           qPrintable(QStringLiteral("graph %1 of %2").arg(window.graphWidget()->width()).arg(window.width())));
}

void TestLayoutFit::valuesTableShowsCoordinatesAndFeatures() {
  StudioSession session;
  NumericRun run(&session);
  QVERIFY(openAndWait(session, QStringLiteral("example:chain:2")));
  run.run();
  QVERIFY(waitFor([&] { return run.state() == NumericRun::State::Finished; }));
  const QString node = chainPrefix(2).constLast();
  const auto values = run.valuesOf(node);
  QVERIFY(!values.empty());
  const auto* sparse = std::get_if<runtime::Sparse>(&values.front().second);
  QVERIFY(sparse);

  // A side panel's width: the coordinates and at least the first two features, no scroll bar.
  ValueInspector inspector;
  inspector.resize(380, 600);
  inspector.setValue(values.front().first, values.front().second);
  inspector.show();
  QVERIFY(QTest::qWaitForWindowExposed(&inspector));
  auto* table = inspector.findChild<QTableView*>();
  QVERIFY(table);
  QTest::qWait(50);
  shot(&inspector, QStringLiteral("value-inspector"));
  const int shown = std::min<int>(table->model()->columnCount(), 4 + 2);
  QVERIFY(table->model()->columnCount() >= 5);
  int width = table->verticalHeader()->width();
  for (int c = 0; c < shown; ++c) {
    width += table->columnWidth(c);
    // Each shown cell's text fits its column.
    const QString text = table->model()->index(0, c).data().toString();
    QVERIFY2(table->fontMetrics().horizontalAdvance(text) < table->columnWidth(c),
             qPrintable(QStringLiteral("column %1: '%2' in %3 px").arg(c).arg(text).arg(table->columnWidth(c))));
  }
  QVERIFY2(width <= table->viewport()->width() + table->verticalHeader()->width(),
           qPrintable(QStringLiteral("%1 px of columns in a %2 px table").arg(width).arg(table->width())));
}

void TestLayoutFit::statusMessageKeepsItsRoom() {
  MainWindow window;
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  QVERIFY(openAndWait(*window.session(), QStringLiteral("example:chain:3")));
  window.action(QStringLiteral("view.overlayAccuracy"))->trigger(); // its legend joins the permanent labels
  QTest::qWait(50);
  QStatusBar* bar = window.statusBar();
  const QString message = QStringLiteral("Reloaded chain.ltfx: 9 nodes (were 17); breakpoints: kept 1 of 2; the "
                                         "selected node and module kept; inputs as they were");
  bar->showMessage(message);
  QTest::qWait(50);
  // The permanent widgets start right of the message's room: all of it, or two thirds of the bar.
  int left = bar->width();
  for (QWidget* w : bar->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly))
    if (w->isVisible() && w->width() > 0) left = std::min(left, w->x());
  const int wanted = std::min(bar->fontMetrics().horizontalAdvance(message), bar->width() * 2 / 3);
  QVERIFY2(left >= wanted, qPrintable(QStringLiteral("message room %1 px, wanted %2 px").arg(left).arg(wanted)));
  QVERIFY(window.minimumSizeHint().width() <= screenRoom().width());
  // Without a message the labels take their room again.
  bar->clearMessage();
  QTest::qWait(50);
  auto* legend = bar->findChild<QLabel*>(QStringLiteral("overlayLegend"));
  QVERIFY(legend);
  QCOMPARE(legend->maximumWidth(), QWIDGETSIZE_MAX);
}

// Runs the tests on a 1600 × 1000 offscreen screen, then again at QT_SCALE_FACTOR=1.5.
int main(int argc, char** argv) {
  const QString config = QDir::temp().filePath(QStringLiteral("lattice-fit-screen-%1.json").arg(QCoreApplication::applicationPid()));
  {
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly)) return 2;
    f.write(R"({"screens": [{"name": "fit", "x": 0, "y": 0, "width": 1600, "height": 1000, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
  }
  qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + QFile::encodeName(config));
  const bool scaled = qEnvironmentVariableIsSet("QT_SCALE_FACTOR");
  int failures = 0;
  {
    QApplication app(argc, argv);
    TestLayoutFit test;
    failures = QTest::qExec(&test, argc, argv);
    if (!scaled) {
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert(QStringLiteral("QT_SCALE_FACTOR"), QStringLiteral("1.5"));
      QProcess again;
      again.setProcessEnvironment(env);
      again.setProcessChannelMode(QProcess::ForwardedChannels);
      again.start(QCoreApplication::applicationFilePath(), app.arguments().mid(1));
      again.waitForFinished(-1);
      failures += again.exitStatus() == QProcess::NormalExit ? again.exitCode() : 1;
    }
  }
  QFile::remove(config);
  return failures;
}

#include "tst_layout_fit.moc"
