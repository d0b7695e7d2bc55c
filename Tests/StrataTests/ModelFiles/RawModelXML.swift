import Foundation

/// A deliberately separate reading of model XML, with regular expressions rather than
/// `XMLParser`, so that corpus tests check the reader against an independent account of
/// what each file declares.
struct RawModelXML {
    /// One element: its name, attributes, and children.
    struct Element {
        var name: String
        var attributes: [String: String]
        var children: [Element] = []

        func children(named name: String) -> [Element] { children.filter { $0.name == name } }

        /// A canonical text of the element and everything below it, insensitive to the order
        /// of attributes and of children: equal for semantically identical XML.
        var canonicalText: String {
            let attributeText = attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.debugDescription)" }
            let childTexts = children.map(\.canonicalText).sorted()
            return "<\(name) \(attributeText.joined(separator: " "))>[\(childTexts.joined(separator: ","))]"
        }
    }

    let root: Element

    var entities: [Element] { root.children(named: "entity") }

    init?(text: String) {
        let tag = /<(\/?)([A-Za-z_][A-Za-z0-9_.:-]*)((?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*\s*=\s*"[^"]*")*)\s*(\/?)>/
        let attribute = /([A-Za-z_:][A-Za-z0-9_.:-]*)\s*=\s*"([^"]*)"/
        var stack: [Element] = []
        var root: Element?
        for match in text.matches(of: tag) {
            let (_, closing, name, attributeText, selfClosing) = match.output
            if closing == "/" {
                guard let element = stack.popLast(), element.name == name else { return nil }
                if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
                continue
            }
            var attributes: [String: String] = [:]
            for attributeMatch in attributeText.matches(of: attribute) {
                attributes[String(attributeMatch.output.1)] = Self.unescape(String(attributeMatch.output.2))
            }
            let element = Element(name: String(name), attributes: attributes)
            if selfClosing == "/" {
                if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
            } else {
                stack.append(element)
            }
        }
        guard stack.isEmpty, let root else { return nil }
        self.root = root
    }

    private static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = text
        for (entity, character) in [("&quot;", "\""), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        result = result.replacing(/&#(x?)([0-9A-Fa-f]+);/) { match in
            let value = UInt32(match.output.2, radix: match.output.1 == "x" ? 16 : 10)
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) } ?? ""
        }
        return result.replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `NSAttributeType` raw values by Xcode spelling, as STORE-FORMAT.md §1.3 lists them.
    static let attributeTypeRawValues: [String: UInt] = [
        "Undefined": 0, "Integer 16": 100, "Integer 32": 200, "Integer 64": 300, "Decimal": 400, "Double": 500,
        "Float": 600, "String": 700, "Boolean": 800, "Date": 900, "Binary": 1000, "UUID": 1100, "URI": 1200,
        "Transformable": 1800, "ObjectID": 2000, "Composite": 2100,
    ]

    /// `NSDeleteRule` raw values by Xcode spelling.
    static let deleteRuleRawValues: [String: UInt] = ["No Action": 0, "Nullify": 1, "Cascade": 2, "Deny": 3]
}
