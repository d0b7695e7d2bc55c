import Foundation

/// The SVG of `strata model diagram --format svg`, drawn by the tool itself: no Graphviz,
/// no fonts or style sheets to fetch, the same bytes for the same model.
///
/// Layout: entity boxes (name, then `attribute: Type` rows) on a grid in name order; each
/// column is as wide as its widest box and each row as tall as its tallest, so boxes never
/// overlap. Relationships are straight lines between box edges with crow's-foot ends (a fork
/// for to-many, a bar for to-one, a circle for optional) and the relationship's name at the
/// end it points to; inheritance is a dashed line with a hollow triangle at the parent.
/// Lines are drawn under the boxes, names over everything.
enum DiagramSVG {
    private static let font = "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\""
    private static let characterWidth = 7.2
    private static let lineHeight = 16.0
    private static let headerHeight = 24.0
    private static let padding = 10.0
    private static let gap = (x: 110.0, y: 80.0)
    private static let margin = 30.0

    /// A placed box.
    private struct Box {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
        var center: (x: Double, y: Double) { (x + width / 2, y + height / 2) }
    }

    /// The whole SVG document: links first, then boxes over them, then names over everything.
    static func render(_ graph: ModelGraph) -> String {
        let boxes = layout(graph)
        let total = boxes.values.reduce((width: 0.0, height: 0.0)) { size, box in
            (max(size.width, box.x + box.width), max(size.height, box.y + box.height))
        }
        // A loop (a relationship to the same entity) and its name reach past the box's right side.
        let loopLabels = graph.links.filter { $0.from == $0.to }.map { Double($0.label.count) * 6.5 + 60 }
        let width = total.width + max(margin, loopLabels.max() ?? 0)
        let height = total.height + margin
        var body: [String] = []
        var labels: [String] = []
        var pairCounts: [String: Int] = [:]
        for link in graph.links {
            guard let from = boxes[link.from], let to = boxes[link.to] else { continue }
            let pair = [link.from, link.to].sorted().joined(separator: "\u{0}")
            let index = pairCounts[pair, default: 0]
            pairCounts[pair] = index + 1
            if link.from == link.to {
                drawLoop(link, box: from, index: index, body: &body, labels: &labels)
            } else {
                drawLink(link, from: from, to: to, offset: Double(index) * 14, body: &body, labels: &labels)
            }
        }
        for entity in graph.entities {
            guard let parent = entity.parent, let child = boxes[entity.name], let parentBox = boxes[parent] else { continue }
            let start = edgePoint(of: child, toward: parentBox.center)
            let end = edgePoint(of: parentBox, toward: child.center)
            body.append(
                "<line x1=\"\(f(start.x))\" y1=\"\(f(start.y))\" x2=\"\(f(end.x))\" y2=\"\(f(end.y))\" "
                    + "stroke=\"#555\" stroke-dasharray=\"6 4\" marker-end=\"url(#inherits)\"/>")
        }
        for entity in graph.entities {
            guard let box = boxes[entity.name] else { continue }
            body.append(contentsOf: drawBox(entity, box))
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))">
            <title>\(DiagramText.html(graph.name))</title>
            <defs><marker id="inherits" viewBox="0 0 12 12" refX="12" refY="6" markerWidth="12" markerHeight="12" orient="auto">\
            <path d="M0,0 L12,6 L0,12 z" fill="white" stroke="#555"/></marker></defs>
            <rect width="100%" height="100%" fill="white"/>
            \((body + labels).joined(separator: "\n"))
            </svg>

            """
    }

    /// Places the boxes on a grid of about √n columns, in name order.
    private static func layout(_ graph: ModelGraph) -> [String: Box] {
        let sizes = graph.entities.map { entity -> (width: Double, height: Double) in
            let title = entity.name + (entity.isAbstract ? " (abstract)" : "")
            let longest = ([title.count] + entity.attributes.map { $0.name.count + 2 + $0.type.count }).max() ?? 0
            return (
                Double(longest) * characterWidth + 2 * padding, headerHeight + Double(entity.attributes.count) * lineHeight + 8
            )
        }
        let columns = max(1, Int(Double(graph.entities.count).squareRoot().rounded(.up)))
        let rows = (graph.entities.count + columns - 1) / columns
        let columnWidths = (0..<columns).map { column in
            stride(from: column, to: sizes.count, by: columns).map { sizes[$0].width }.max() ?? 0
        }
        let rowHeights = (0..<rows).map { row in
            (row * columns..<min((row + 1) * columns, sizes.count)).map { sizes[$0].height }.max() ?? 0
        }
        var boxes: [String: Box] = [:]
        for (index, entity) in graph.entities.enumerated() {
            let column = index % columns
            let row = index / columns
            let x = margin + columnWidths[..<column].reduce(0, +) + Double(column) * gap.x
            let y = margin + rowHeights[..<row].reduce(0, +) + Double(row) * gap.y
            boxes[entity.name] = Box(x: x, y: y, width: sizes[index].width, height: sizes[index].height)
        }
        return boxes
    }

    /// An entity's box: a header with its name, then one row per attribute.
    private static func drawBox(_ entity: ModelGraph.Entity, _ box: Box) -> [String] {
        let title = DiagramText.html(entity.name) + (entity.isAbstract ? " <tspan font-style=\"italic\">(abstract)</tspan>" : "")
        var parts = [
            "<g class=\"entity\" id=\"entity-\(DiagramText.html(entity.name))\">",
            "<rect x=\"\(f(box.x))\" y=\"\(f(box.y))\" width=\"\(f(box.width))\" height=\"\(f(box.height))\" rx=\"4\" "
                + "fill=\"#fbfcfe\" stroke=\"#34495e\"/>",
            "<rect x=\"\(f(box.x))\" y=\"\(f(box.y))\" width=\"\(f(box.width))\" height=\"\(f(headerHeight))\" rx=\"4\" "
                + "fill=\"#dde6f3\" stroke=\"#34495e\"/>",
            "<text x=\"\(f(box.x + padding))\" y=\"\(f(box.y + 16))\" \(font) font-size=\"12\" font-weight=\"bold\">\(title)</text>",
        ]
        for (index, attribute) in entity.attributes.enumerated() {
            let y = box.y + headerHeight + Double(index + 1) * lineHeight - 3
            parts.append(
                "<text x=\"\(f(box.x + padding))\" y=\"\(f(y))\" \(font) font-size=\"12\">\(DiagramText.html(attribute.name))"
                    + "<tspan fill=\"#777\">: \(DiagramText.html(attribute.type))</tspan></text>")
        }
        parts.append("</g>")
        return parts
    }

    /// A relationship between two boxes, with its ends marked and named.
    private static func drawLink(
        _ link: ModelGraph.Link, from: Box, to: Box, offset: Double, body: inout [String], labels: inout [String]
    ) {
        // Parallel links between the same boxes are shifted sideways, so each stays visible.
        let dx = to.center.x - from.center.x
        let dy = to.center.y - from.center.y
        let length = max((dx * dx + dy * dy).squareRoot(), 1)
        let normal = (x: -dy / length * offset, y: dx / length * offset)
        let fromCenter = (x: from.center.x + normal.x, y: from.center.y + normal.y)
        let toCenter = (x: to.center.x + normal.x, y: to.center.y + normal.y)
        let start = edgePoint(of: from, toward: toCenter, from: fromCenter)
        let end = edgePoint(of: to, toward: fromCenter, from: toCenter)
        body.append(
            "<line x1=\"\(f(start.x))\" y1=\"\(f(start.y))\" x2=\"\(f(end.x))\" y2=\"\(f(end.y))\" stroke=\"#34495e\"/>")
        body.append(contentsOf: endMarks(at: end, from: start, end: link.forward))
        labels.append(label(link.forward.name, at: end, from: start))
        if let backward = link.backward {
            body.append(contentsOf: endMarks(at: start, from: end, end: backward))
            labels.append(label(backward.name, at: start, from: end))
        }
    }

    /// A relationship from an entity to itself: a loop on the box's right side.
    private static func drawLoop(_ link: ModelGraph.Link, box: Box, index: Int, body: inout [String], labels: inout [String]) {
        let spread = 10 + Double(index) * 12
        let top = (x: box.x + box.width, y: box.y + headerHeight + 4 + Double(index) * 6)
        let bottom = (x: box.x + box.width, y: min(box.y + box.height - 4, top.y + 24))
        let reach = box.x + box.width + 30 + spread
        body.append(
            "<path d=\"M\(f(top.x)),\(f(top.y)) C\(f(reach)),\(f(top.y)) \(f(reach)),\(f(bottom.y)) \(f(bottom.x)),\(f(bottom.y))\" "
                + "fill=\"none\" stroke=\"#34495e\"/>")
        body.append(contentsOf: endMarks(at: bottom, from: (bottom.x + 20, bottom.y), end: link.forward))
        labels.append(
            "<text x=\"\(f(reach + 2))\" y=\"\(f((top.y + bottom.y) / 2 + 4))\" \(font) font-size=\"10\" fill=\"#2c3e50\">"
                + "\(DiagramText.html(link.label))</text>")
    }

    /// The crow's-foot marks where a line meets a box: a fork (to-many) or a bar (to-one),
    /// and a small circle further out when the relationship is optional.
    private static func endMarks(
        at point: (x: Double, y: Double), from other: (x: Double, y: Double), end: ModelGraph.End
    )
        -> [String]
    {
        let dx = other.x - point.x
        let dy = other.y - point.y
        let length = max((dx * dx + dy * dy).squareRoot(), 1)
        let unit = (x: dx / length, y: dy / length)
        let side = (x: -unit.y, y: unit.x)
        var marks: [String] = []
        if end.isToMany {
            let base = (x: point.x + unit.x * 12, y: point.y + unit.y * 12)
            for spread in [-7.0, 0, 7] {
                let tip = (x: point.x + side.x * spread, y: point.y + side.y * spread)
                marks.append(
                    "<line x1=\"\(f(base.x))\" y1=\"\(f(base.y))\" x2=\"\(f(tip.x))\" y2=\"\(f(tip.y))\" stroke=\"#34495e\"/>")
            }
        } else {
            let at = (x: point.x + unit.x * 8, y: point.y + unit.y * 8)
            marks.append(
                "<line x1=\"\(f(at.x + side.x * 7))\" y1=\"\(f(at.y + side.y * 7))\" x2=\"\(f(at.x - side.x * 7))\" "
                    + "y2=\"\(f(at.y - side.y * 7))\" stroke=\"#34495e\"/>")
        }
        if end.isOptional {
            let center = (x: point.x + unit.x * 20, y: point.y + unit.y * 20)
            marks.append("<circle cx=\"\(f(center.x))\" cy=\"\(f(center.y))\" r=\"4\" fill=\"white\" stroke=\"#34495e\"/>")
        }
        return marks
    }

    /// A relationship's name beside the end it points to, with a white halo over lines.
    private static func label(_ text: String, at point: (x: Double, y: Double), from other: (x: Double, y: Double)) -> String {
        let dx = other.x - point.x
        let dy = other.y - point.y
        let length = max((dx * dx + dy * dy).squareRoot(), 1)
        let x = point.x + dx / length * 30 - dy / length * 8
        let y = point.y + dy / length * 30 + dx / length * 8 + 3
        return "<text x=\"\(f(x))\" y=\"\(f(y))\" \(font) font-size=\"10\" fill=\"#2c3e50\" text-anchor=\"middle\" "
            + "stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(DiagramText.html(text))</text>"
    }

    /// Where the line from `start` (the box's center unless given) toward `target` leaves
    /// the box.
    private static func edgePoint(
        of box: Box, toward target: (x: Double, y: Double), from start: (x: Double, y: Double)? = nil
    )
        -> (x: Double, y: Double)
    {
        let origin = start ?? box.center
        let dx = target.x - origin.x
        let dy = target.y - origin.y
        var scale = Double.infinity
        if dx > 0 { scale = min(scale, (box.x + box.width - origin.x) / dx) }
        if dx < 0 { scale = min(scale, (box.x - origin.x) / dx) }
        if dy > 0 { scale = min(scale, (box.y + box.height - origin.y) / dy) }
        if dy < 0 { scale = min(scale, (box.y - origin.y) / dy) }
        guard scale.isFinite else { return origin }
        return (origin.x + dx * scale, origin.y + dy * scale)
    }

    /// Coordinates with one decimal, so the text is the same on every machine.
    private static func f(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
