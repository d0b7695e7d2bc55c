import Foundation
import SwiftSyntax

/// The bodies of the to-many accessors Xcode declares `@NSManaged` (`addToTags(_:)`,
/// `insertIntoItems(_:at:)`…), the same that Strata's code generator writes
/// (`StrataCodegen.ToManyAccessorWriter`): every change goes through
/// `mutableSetValue(forKey:)` or, for an ordered relationship, `orderedToManyEditor(forKey:)`.
enum ToManyAccessorBody {
    /// The edit that removes `@NSManaged` from an accessor and gives it its body, and the body's
    /// lines; nil when the method is not one of Xcode's accessors.
    static func edit(
        for function: FunctionDeclSyntax, removing attribute: AttributeSyntax, in bytes: [UInt8], relationships: [String: Bool]
    ) -> (edit: SourceEdit, body: [String])? {
        guard function.body == nil, let lines = body(of: function, relationships: relationships) else { return nil }
        let start = function.positionAfterSkippingLeadingTrivia.utf8Offset
        let end = function.endPositionBeforeTrailingTrivia.utf8Offset
        var lineStart = start
        while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        let indent = String(
            decoding: bytes[lineStart..<start].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }, as: UTF8.self)
        // The declaration's own text without the attribute, then the body.
        var removal = SourceEdit.removing(attribute, in: bytes)
        removal.start -= start
        removal.end -= start
        let declaration = SourceEdit.apply([removal], to: String(decoding: bytes[start..<end], as: UTF8.self)).text
        let body = lines.map { indent + "    " + $0 }.joined(separator: "\n")
        return (SourceEdit(start: start, end: end, replacement: declaration + " {\n" + body + "\n" + indent + "}"), lines)
    }

    /// The body's lines, from the method's name and parameters.
    private static func body(of function: FunctionDeclSyntax, relationships: [String: Bool]) -> [String]? {
        let name = function.name.text
        let parameters = function.signature.parameterClause.parameters.map { parameter in
            (
                label: parameter.firstName.text, name: (parameter.secondName ?? parameter.firstName).text,
                type: parameter.type.trimmedDescription
            )
        }
        guard let (prefix, key) = split(name) else { return nil }
        let literal = "\"\(key)\""
        let types = parameters.map(\.type)
        let isOrdered =
            relationships[key] ?? false || types.contains("NSOrderedSet") || types.contains("NSIndexSet")
            || prefix != "addTo" && prefix != "removeFrom"
        let set = isOrdered ? "orderedToManyEditor(forKey: \(literal))" : "mutableSetValue(forKey: \(literal))"
        let local = "let objects = \(set)"
        switch (prefix, parameters.count) {
        case ("addTo", 1) where types[0] == "NSSet":
            return ["\(set).addObjects(from: \(parameters[0].name).allObjects)"]
        case ("removeFrom", 1) where types[0] == "NSSet":
            return ["\(set).minus(Set(\(parameters[0].name).allObjects.compactMap { $0 as? AnyHashable }))"]
        case ("addTo", 1) where types[0] == "NSOrderedSet":
            return [local, "for value in \(parameters[0].name).array {", "    objects.add(value)", "}"]
        case ("removeFrom", 1) where types[0] == "NSOrderedSet":
            return [local, "for value in \(parameters[0].name).array {", "    objects.remove(value)", "}"]
        case ("removeFrom", 1) where parameters[0].label == "at" && types[0] == "Int":
            return ["\(set).removeObject(at: \(parameters[0].name))"]
        case ("removeFrom", 1) where parameters[0].label == "at":
            return [local, "for index in \(parameters[0].name).reversed() {", "    objects.removeObject(at: index)", "}"]
        case ("addTo", 1):
            return ["\(set).add(\(parameters[0].name))"]
        case ("removeFrom", 1):
            return ["\(set).remove(\(parameters[0].name))"]
        case ("insertInto", 2) where types[1] == "Int":
            return ["\(set).insert(\(parameters[0].name), at: \(parameters[1].name))"]
        case ("insertInto", 2):
            return [
                local, "for (value, index) in zip(\(parameters[0].name), \(parameters[1].name)) {",
                "    objects.insert(value, at: index)", "}",
            ]
        case ("replace", 2) where types[0] == "Int":
            return ["\(set).replaceObject(at: \(parameters[0].name), with: \(parameters[1].name))"]
        case ("replace", 2):
            return [
                local, "for (index, value) in zip(\(parameters[0].name), \(parameters[1].name)) {",
                "    objects.replaceObject(at: index, with: value)", "}",
            ]
        default:
            return nil
        }
    }

    /// `("addTo", "tags")` for `addToTags`.
    private static func split(_ name: String) -> (String, String)? {
        for prefix in ["addTo", "removeFrom", "insertInto", "replace"] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let first = rest.first, first.isUppercase else { continue }
            return (prefix, first.lowercased() + rest.dropFirst())
        }
        return nil
    }
}
