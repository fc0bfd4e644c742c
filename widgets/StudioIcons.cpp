// StudioIcons: the SVG icons of resources/icons/, drawn on a 24×24 grid (the application icon on
// 256×256), read from the resources compiled into this library.

#include "StudioIcons.h"

#include <QString>

// The resources live in a static library: nothing would pull their object file into the
// executable unless it is referenced, which Q_INIT_RESOURCE does (outside any namespace).
static void initStudioResources() {
  Q_INIT_RESOURCE(lattice_studio);
}

namespace lattice::studio::icons {

namespace {

QIcon fromResource(const char* name) {
  static const bool initialised = (initStudioResources(), true);
  (void)initialised;
  return QIcon(QStringLiteral(":/lattice-studio/icons/") + QString::fromLatin1(name));
}

} // namespace

QIcon application() {
  return fromResource("lattice-studio.svg");
}
QIcon open() {
  return fromResource("toolbar/open.svg");
}
QIcon exportArtifact() {
  return fromResource("toolbar/export.svg");
}
QIcon zoomIn() {
  return fromResource("toolbar/zoom-in.svg");
}
QIcon zoomOut() {
  return fromResource("toolbar/zoom-out.svg");
}
QIcon zoomFit() {
  return fromResource("toolbar/zoom-fit.svg");
}
QIcon find() {
  return fromResource("toolbar/find.svg");
}
QIcon start() {
  return fromResource("toolbar/start.svg");
}
QIcon step() {
  return fromResource("toolbar/step.svg");
}
QIcon continueRun() {
  return fromResource("toolbar/continue.svg");
}
QIcon runToCursor() {
  return fromResource("toolbar/run-to-cursor.svg");
}
QIcon breakpoint() {
  return fromResource("toolbar/breakpoint.svg");
}
QIcon stop() {
  return fromResource("toolbar/stop.svg");
}

} // namespace lattice::studio::icons
