#pragma once
/// \file StudioIcons: the studio's icons, SVG files from resources/icons/ compiled into the
/// library (resources/lattice_studio.qrc) and drawn by Qt's SVG icon engine at any size. No icon
/// theme is guaranteed on the machines the studio runs on, and Qt's standard pixmaps lack zoom
/// and breakpoint.

#include <QIcon>

namespace lattice::studio::icons {

/// The application icon (the window icon; installed as the hicolor `lattice-studio` icon).
QIcon application();

QIcon open();
QIcon exportArtifact();
QIcon zoomIn();
QIcon zoomOut();
QIcon zoomFit();
QIcon find();
QIcon start();
QIcon step();
QIcon continueRun();
QIcon runToCursor();
QIcon breakpoint();
QIcon stop();

} // namespace lattice::studio::icons
