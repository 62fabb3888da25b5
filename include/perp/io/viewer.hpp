#pragma once
/// \file
/// The scene viewer: one self-contained HTML page (no network: the script and the data inline)
/// that draws a simulated scene to scale on a canvas — disks, boxes, rods, the ground, walls and
/// slopes — and plays it: play/pause, a time slider, the speed, a frame counter, the contacts and
/// their impulses as arrows (a toggle), and the energy curve with a cursor at the current time.
///
/// The page holds the run's decimated frames (`SimulationRecord::frames`) and says so when frames
/// were dropped. A script (or a test) can seek by the address: `view.html#t=0.5&contacts=0`
/// sets the slider to the frame nearest t = 0.5 s and hides the contacts (`&play=1` starts playing); the element
/// `<pre id="state">` then holds a JSON object with the frame shown (`frame`, `step`, `t`), the
/// projection (`scale` in pixels a metre, `origin` the pixel of world (0, 0); pixel x = origin.x +
/// scale·x, pixel y = origin.y − scale·y on the scene canvas, whose top-left pixel is at
/// `canvas_origin` in the page), the body colours and the errors
/// the page met (`errors`, empty when none). `window.perpViewer.seek(t)` does the same as the
/// address.

#include <filesystem>

#include "perp/contact/scene.hpp"
#include "perp/io/simulation.hpp"

namespace perp {

/// Writes the viewer page of `record` (a run of `scene`) to `path`; `title` is shown on the page
/// (the scene file's name, say). Poses carry 6 significant digits, contact points 5 and impulses
/// 3 (the page is about 9 MB for the 210-box pyramid's 10 s, every other step). Throws `InvalidProblem` naming the file when it cannot be written.
void write_viewer_html(const std::filesystem::path& path, const contact::Scene& scene, const SimulationRecord& record,
                       const std::string& title);

}  // namespace perp
