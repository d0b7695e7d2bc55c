import Foundation

/// The values of composite attributes. As in Core Data, an object holds a composite's value as
/// a dictionary keyed by element name, a nested composite's value as a nested dictionary; the
/// SQLite store keeps each leaf element (an element that is not itself a composite) in a column
/// of its own, and key paths name leaves through the composite (`magnitude.richter`).
package enum CompositeValues {
    /// A leaf element of a composite attribute: the element names that lead to it from the
    /// composite, and its description (which gives its type).
    package struct Leaf: @unchecked Sendable {
        package let path: [String]
        package let attribute: NSAttributeDescription
        /// The path joined with dots, as key paths spell it after the composite's name.
        package var keyPath: String { path.joined(separator: ".") }
    }

    /// How deep composites may nest: a model whose composite types contain one another stops
    /// there (the model reader already cuts such cycles short).
    package static let depthLimit = 32

    /// Every leaf of a composite, depth first in element order.
    package static func leaves(of composite: NSCompositeAttributeDescription) -> [Leaf] {
        var result: [Leaf] = []
        func visit(_ composite: NSCompositeAttributeDescription, _ prefix: [String]) {
            guard prefix.count < depthLimit else { return }
            for element in composite.elements {
                if let nested = element as? NSCompositeAttributeDescription {
                    visit(nested, prefix + [element.name])
                } else if !element.isTransient {
                    result.append(Leaf(path: prefix + [element.name], attribute: element))
                }
            }
        }
        visit(composite, [])
        return result
    }

    /// The leaf with the given path (`["richter"]`, `["colors", "primary"]`), if the composite has one.
    package static func leaf(_ path: some Collection<String>, of composite: NSCompositeAttributeDescription) -> Leaf? {
        leaves(of: composite).first { $0.path.elementsEqual(path) }
    }

    /// The value at `path` of a composite's value; `nil` for a missing or null value, or when
    /// the value is no dictionary.
    package static func value(at path: some Collection<String>, in composite: Any?) -> Any? {
        var current = composite
        for name in path {
            guard let dictionary = dictionary(current) else { return nil }
            current = dictionary[name]
        }
        guard let current, !(current is NSNull) else { return nil }
        return current
    }

    /// A composite value as a dictionary (`[String: Any]`, `NSDictionary` with string keys);
    /// `nil` for anything else.
    package static func dictionary(_ value: Any?) -> [String: Any]? {
        switch value {
        case let dictionary as [String: Any]: return dictionary
        case let dictionary as [AnyHashable: Any]:
            var result: [String: Any] = [:]
            for (key, value) in dictionary {
                guard let key = key.base as? String else { return nil }
                result[key] = value
            }
            return result
        default: return nil
        }
    }

    /// A composite's value from its leaves' values: nested dictionaries, leaves without a value
    /// left out; `nil` when no leaf has a value (a composite that was never set).
    package static func assemble(_ values: [(path: [String], value: Any)]) -> [String: Any]? {
        guard !values.isEmpty else { return nil }
        var root: [String: Any] = [:]
        func insert(_ value: Any, at path: ArraySlice<String>, into dictionary: inout [String: Any]) {
            guard let first = path.first else { return }
            if path.count == 1 {
                dictionary[first] = value
                return
            }
            var nested = dictionary[first] as? [String: Any] ?? [:]
            insert(value, at: path.dropFirst(), into: &nested)
            dictionary[first] = nested
        }
        for (path, value) in values { insert(value, at: path[...], into: &root) }
        return root
    }

    /// A composite's value with the element at `path` set (removed for `nil`); nested
    /// dictionaries are made as needed.
    package static func setting(_ value: Any?, at path: some Collection<String>, in composite: Any?) -> [String: Any] {
        var dictionary = self.dictionary(composite) ?? [:]
        guard let first = path.first else { return dictionary }
        let rest = path.dropFirst()
        if rest.isEmpty {
            dictionary[first] = value.flatMap { $0 is NSNull ? nil : $0 }
        } else {
            dictionary[first] = setting(value, at: rest, in: dictionary[first])
        }
        return dictionary
    }

    /// Checks that a value can be stored by the composite: `nil`, or a dictionary whose keys
    /// are elements of the composite (nested composites checked the same way). The reason it
    /// cannot, otherwise.
    package static func problem(with value: Any?, of composite: NSCompositeAttributeDescription) -> String? {
        guard let value, !(value is NSNull) else { return nil }
        guard let dictionary = dictionary(value) else {
            return "a composite attribute's value is a dictionary of its elements' values, not \(type(of: value))"
        }
        for (key, element) in dictionary {
            guard let description = composite.elements.first(where: { $0.name == key }) else {
                return "\"\(key)\" is not an element of the composite attribute \(composite.name)"
            }
            if let nested = description as? NSCompositeAttributeDescription,
                let problem = problem(with: element, of: nested)
            {
                return problem
            }
        }
        return nil
    }
}

extension NSEntityDescription {
    /// The composite attribute with the given name (inherited ones included), found by the
    /// entity's layout rather than a dictionary made for the question.
    package func compositeAttribute(named name: String) -> NSCompositeAttributeDescription? {
        guard let index = layout.index(of: name) else { return nil }
        return layout.properties[index] as? NSCompositeAttributeDescription
    }
}
