// The studio's icons come from the SVG resources compiled into lattice_widgets: each one is
// found, drawn by Qt's SVG engine at every size a tool bar, a menu or a HiDPI screen asks for,
// and no two toolbar icons look the same.

#include "StudioIcons.h"

#include <QtTest/QtTest>

#include <QFile>
#include <QIcon>
#include <QImage>
#include <QSet>

#include <functional>
#include <vector>

namespace icons = lattice::studio::icons;

namespace {

struct NamedIcon {
  const char* name;
  std::function<QIcon()> make;
};

const std::vector<NamedIcon>& toolbarIcons() {
  static const std::vector<NamedIcon> all = {
      {"open", icons::open},
      {"exportArtifact", icons::exportArtifact},
      {"zoomIn", icons::zoomIn},
      {"zoomOut", icons::zoomOut},
      {"zoomFit", icons::zoomFit},
      {"find", icons::find},
      {"start", icons::start},
      {"step", icons::step},
      {"continueRun", icons::continueRun},
      {"runToCursor", icons::runToCursor},
      {"breakpoint", icons::breakpoint},
      {"stop", icons::stop},
  };
  return all;
}

/// The share of pixels with some opacity.
double coverage(const QImage& image) {
  int drawn = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      drawn += qAlpha(image.pixel(x, y)) != 0;
  return double(drawn) / (image.width() * image.height());
}

/// How many different pixel values: a blank or flat-filled image has one.
int colours(const QImage& image) {
  QSet<QRgb> seen;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      seen.insert(image.pixel(x, y));
  return int(seen.size());
}

} // namespace

class TestStudioIcons : public QObject {
  Q_OBJECT
private Q_SLOTS:
  void resourcesAreLinked() {
    (void)icons::open(); // initialises the library's resources
    QVERIFY(QFile::exists(QStringLiteral(":/lattice-studio/icons/lattice-studio.svg")));
    QVERIFY(QFile::exists(QStringLiteral(":/lattice-studio/icons/toolbar/open.svg")));
  }

  void iconsAreDrawnAtEverySize_data() {
    QTest::addColumn<int>("index");
    for (int i = 0; i < int(toolbarIcons().size()); ++i)
      QTest::newRow(toolbarIcons()[i].name) << i;
    QTest::newRow("application") << -1;
  }
  void iconsAreDrawnAtEverySize() {
    QFETCH(int, index);
    const QIcon icon = index < 0 ? icons::application() : toolbarIcons()[index].make();
    QVERIFY(!icon.isNull());
    for (int size : {16, 20, 24, 32, 48, 128}) {
      const QImage image = icon.pixmap(size, size).toImage();
      QCOMPARE(image.size(), QSize(size, size)); // an SVG scales to any size, up too
      const double c = coverage(image);
      QVERIFY2(c > 0.05, qPrintable(QStringLiteral("%1 px: only %2 of the pixels drawn").arg(size).arg(c)));
      QVERIFY2(colours(image) >= 3, qPrintable(QStringLiteral("%1 px: a flat image").arg(size)));
    }
  }

  void toolbarIconsAreDistinct() {
    std::vector<QImage> images;
    for (const NamedIcon& i : toolbarIcons())
      images.push_back(i.make().pixmap(24, 24).toImage());
    for (size_t a = 0; a < images.size(); ++a)
      for (size_t b = a + 1; b < images.size(); ++b)
        QVERIFY2(images[a] != images[b], qPrintable(QStringLiteral("%1 and %2 look the same")
                                                        .arg(QLatin1String(toolbarIcons()[a].name),
                                                             QLatin1String(toolbarIcons()[b].name))));
  }
};

QTEST_MAIN(TestStudioIcons)
#include "tst_studio_icons.moc"
