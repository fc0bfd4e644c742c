// render-icon: renders an SVG into square PNGs, one per size, for the hicolor icon theme.
// Built and run by resources/CMakeLists.txt, so the PNGs always match the SVG and no SVG tool
// (rsvg, Inkscape) is needed: `render-icon IN.svg SIZE:OUT.png...`. Exit 0, or 1 with a message.

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QString>
#include <QSvgRenderer>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: render-icon IN.svg SIZE:OUT.png...\n");
    return 2;
  }
  const QString input = QString::fromLocal8Bit(argv[1]);
  QSvgRenderer svg(input);
  if (!svg.isValid()) {
    std::fprintf(stderr, "render-icon: %s: not a readable SVG\n", argv[1]);
    return 1;
  }
  for (int i = 2; i < argc; ++i) {
    const QString arg = QString::fromLocal8Bit(argv[i]);
    const qsizetype colon = arg.indexOf(QLatin1Char(':'));
    bool ok = false;
    const int size = colon > 0 ? arg.left(colon).toInt(&ok) : 0;
    if (!ok || size < 1 || size > 4096 || colon + 1 >= arg.size()) {
      std::fprintf(stderr, "render-icon: expected SIZE:OUT.png, got '%s'\n", argv[i]);
      return 2;
    }
    const QString output = arg.mid(colon + 1);
    QDir().mkpath(QFileInfo(output).absolutePath());
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    svg.render(&painter, QRectF(0, 0, size, size));
    painter.end();
    bool drawn = false; // a renderer that draws nothing must not pass for an icon
    for (int y = 0; y < size && !drawn; ++y)
      for (int x = 0; x < size && !drawn; ++x)
        drawn = qAlpha(image.pixel(x, y)) != 0;
    if (!drawn) {
      std::fprintf(stderr, "render-icon: %s rendered nothing at %d px\n", argv[1], size);
      return 1;
    }
    if (!image.save(output, "PNG")) {
      std::fprintf(stderr, "render-icon: cannot write '%s'\n",
                   qPrintable(QFileInfo(output).absoluteFilePath()));
      return 1;
    }
  }
  return 0;
}
