//! The evaluation graph: Black's winning probability after each move, with blunders and
//! mistakes marked, as SVG (text, for the web and documents) and PNG (drawn with tiny-skia).
//! Both share the geometry below, so they show the same picture.

use super::game::{MoveAnalysis, TurningPoint};
use super::score::Mark;
use std::fmt::Write as _;

const WIDTH: f32 = 800.0;
const HEIGHT: f32 = 320.0;

/// The edges of the plotted area inside the picture: the margins hold the title and the axes'
/// labels.
struct Plot {
    left: f32,
    right: f32,
    top: f32,
    bottom: f32,
}

const PLOT: Plot = Plot {
    left: 48.0,
    right: WIDTH - 16.0,
    top: 28.0,
    bottom: HEIGHT - 32.0,
};

struct Geometry {
    last_ply: usize,
}

impl Geometry {
    fn new(moves: &[MoveAnalysis]) -> Geometry {
        Geometry {
            last_ply: moves.last().map_or(1, |m| m.ply).max(1),
        }
    }

    fn x(&self, ply: usize) -> f32 {
        PLOT.left + (PLOT.right - PLOT.left) * ply as f32 / self.last_ply as f32
    }

    /// `p` is Black's winning probability: 100 % at the top.
    fn y(&self, p: f64) -> f32 {
        PLOT.top + (PLOT.bottom - PLOT.top) * (1.0 - p as f32)
    }

    fn points(&self, moves: &[MoveAnalysis]) -> Vec<(f32, f32)> {
        moves
            .iter()
            .map(|m| (self.x(m.ply), self.y(m.after.win_probability())))
            .collect()
    }

    /// Ply labels every 10 or 20 plies, depending on the game's length.
    fn ply_ticks(&self) -> Vec<usize> {
        let step = if self.last_ply > 160 { 20 } else { 10 };
        (0..=self.last_ply).step_by(step).collect()
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn marker_colour(mark: Mark) -> Option<&'static str> {
    match mark {
        Mark::Blunder => Some("#d62728"),
        Mark::Mistake => Some("#ff7f0e"),
        _ => None,
    }
}

/// The graph as an SVG document. `title` goes on top; `turning_points` are drawn as dashed
/// vertical lines.
pub fn svg(title: &str, moves: &[MoveAnalysis], turning_points: &[TurningPoint]) -> String {
    let g = Geometry::new(moves);
    let mut s = String::new();
    let (w, h) = (WIDTH, HEIGHT);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18" font-size="13">{}</text>"#,
        PLOT.left,
        escape(title)
    );
    // Horizontal grid at 0, 25, 50, 75 and 100 % with labels.
    for pct in [0, 25, 50, 75, 100] {
        let y = g.y(f64::from(pct) / 100.0);
        let stroke = if pct == 50 { "#888" } else { "#ddd" };
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{stroke}"/>"#,
            PLOT.left, PLOT.right
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{pct}%</text>"#,
            PLOT.left - 4.0,
            y + 4.0
        );
    }
    for ply in g.ply_ticks() {
        let x = g.x(ply);
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{ply}</text>"#,
            PLOT.bottom + 16.0
        );
    }
    for t in turning_points {
        let x = g.x(t.ply);
        let _ = writeln!(
            s,
            r##"<line class="turning-point" x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{:.1}" stroke="#1f77b4" stroke-dasharray="4 3"/>"##,
            PLOT.top, PLOT.bottom
        );
    }
    let points: Vec<String> = g
        .points(moves)
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline class="evaluation" fill="none" stroke="#222" stroke-width="1.5" points="{}"/>"##,
        points.join(" ")
    );
    for m in moves {
        if let Some(colour) = marker_colour(m.mark) {
            let _ = writeln!(
                s,
                r#"<circle class="{}" cx="{:.1}" cy="{:.1}" r="4" fill="{colour}"><title>{} {}</title></circle>"#,
                m.mark.name(),
                g.x(m.ply),
                g.y(m.after.win_probability()),
                m.ply,
                m.mark.name()
            );
        }
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#555">Black's winning probability by ply; red: blunder, orange: mistake</text>"##,
        PLOT.right,
        h - 4.0
    );
    s.push_str("</svg>\n");
    s
}

/// The same graph as PNG bytes (without the text, which would need a font).
pub fn png(moves: &[MoveAnalysis], turning_points: &[TurningPoint]) -> Result<Vec<u8>, String> {
    use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, StrokeDash, Transform};
    let g = Geometry::new(moves);
    let mut pixmap = Pixmap::new(WIDTH as u32, HEIGHT as u32).ok_or("cannot allocate the image")?;
    pixmap.fill(Color::WHITE);
    let paint = |r: u8, gr: u8, b: u8| {
        let mut p = Paint::default();
        p.set_color_rgba8(r, gr, b, 255);
        p.anti_alias = true;
        p
    };
    let line =
        |pixmap: &mut Pixmap, from: (f32, f32), to: (f32, f32), paint: &Paint, stroke: &Stroke| {
            let mut pb = PathBuilder::new();
            pb.move_to(from.0, from.1);
            pb.line_to(to.0, to.1);
            if let Some(path) = pb.finish() {
                pixmap.stroke_path(&path, paint, stroke, Transform::identity(), None);
            }
        };
    let thin = Stroke {
        width: 1.0,
        ..Stroke::default()
    };
    for pct in [0, 25, 50, 75, 100] {
        let y = g.y(f64::from(pct) / 100.0);
        let colour = if pct == 50 {
            paint(136, 136, 136)
        } else {
            paint(221, 221, 221)
        };
        line(&mut pixmap, (PLOT.left, y), (PLOT.right, y), &colour, &thin);
    }
    for ply in g.ply_ticks() {
        let x = g.x(ply);
        let bottom = PLOT.bottom;
        line(
            &mut pixmap,
            (x, bottom),
            (x, bottom + 5.0),
            &paint(136, 136, 136),
            &thin,
        );
    }
    let dashed = Stroke {
        width: 1.0,
        dash: StrokeDash::new(vec![4.0, 3.0], 0.0),
        ..Stroke::default()
    };
    for t in turning_points {
        let x = g.x(t.ply);
        line(
            &mut pixmap,
            (x, PLOT.top),
            (x, PLOT.bottom),
            &paint(31, 119, 180),
            &dashed,
        );
    }
    let points = g.points(moves);
    if let Some((first, rest)) = points.split_first() {
        let mut pb = PathBuilder::new();
        pb.move_to(first.0, first.1);
        for p in rest {
            pb.line_to(p.0, p.1);
        }
        if let Some(path) = pb.finish() {
            let stroke = Stroke {
                width: 1.5,
                ..Stroke::default()
            };
            pixmap.stroke_path(
                &path,
                &paint(34, 34, 34),
                &stroke,
                Transform::identity(),
                None,
            );
        }
    }
    for m in moves {
        let colour = match m.mark {
            Mark::Blunder => paint(214, 39, 40),
            Mark::Mistake => paint(255, 127, 14),
            _ => continue,
        };
        let (x, y) = (g.x(m.ply), g.y(m.after.win_probability()));
        if let Some(circle) = PathBuilder::from_circle(x, y, 4.0) {
            pixmap.fill_path(
                &circle,
                &colour,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode PNG: {e}"))
}
