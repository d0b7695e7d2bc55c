import ArgumentParser
import Foundation
import Strata

/// `strata store query STORE ENTITY …`: objects fetched through an `NSFetchRequest`, printed as
/// a table, JSON or CSV.
struct StoreQueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Fetch objects with a predicate, sort and limit, and print them as a table, JSON or CSV.",
        discussion: """
            Keys may be key paths through to-one and to-many relationships (tags.title). A \
            relationship is shown by its objects' --label-key, else their first string \
            attribute, else their ids (Entity/pN).

            Examples:
              strata store query Todos.sqlite Todo --predicate 'title CONTAINS[cd] "milk"' --sort -createdAt --limit 10
              strata store query Todos.sqlite Todo --keys title,tags.title,location --format csv
              strata store query Todos.sqlite Tag --count
            """
    )

    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv
    }

    @OptionGroup var arguments: StoreArguments

    @Argument(help: ArgumentHelp("The entity to fetch.", valueName: "entity"))
    var entity: String

    @Option(help: ArgumentHelp("An NSPredicate format string.", valueName: "predicate"))
    var predicate: String?

    // Unconditional: `--sort -createdAt` is a value, not an option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Sort keys, comma-separated; a leading - sorts descending.", valueName: "key,-key"))
    var sort: String?

    @Option(help: ArgumentHelp("At most this many objects.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("The keys (key paths) to print, comma-separated; default: every property.", valueName: "a,b,c.d"))
    var keys: String?

    @Option(help: ArgumentHelp("The key that names related objects.", valueName: "key"))
    var labelKey: String?

    @Option(help: ArgumentHelp("table, json or csv.", valueName: "format"))
    var format: Format = .table

    @Flag(help: "Print only the number of objects that match.")
    var count = false

    @Flag(help: "The same as --format json.")
    var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        try StoreTool.run {
            let opened = try StoreOpening.openReadOnly(arguments.store, modelPath: arguments.model)
            defer { opened.close() }
            let entityDescription = try opened.entity(named: entity)
            let request = NSFetchRequest<NSManagedObject>(entityName: entity)
            if let predicate { request.predicate = try Self.parsePredicate(predicate, entity: entityDescription) }
            let sortKeys = Self.list(sort)
            request.sortDescriptors = try sortKeys.map { key in
                let ascending = !key.hasPrefix("-")
                let path = ascending ? key : String(key.dropFirst())
                _ = try QueryKeyPath(path, entity: entityDescription)
                return NSSortDescriptor(key: path, ascending: ascending)
            }
            if let limit { request.fetchLimit = limit }
            let format = json ? .json : format
            let context = opened.newContext()
            if count {
                let found = try context.performAndWait { () throws -> Int in
                    let counted = try context.count(for: request)
                    return limit.map { min($0, counted) } ?? counted
                }
                print(format == .json ? "{\"count\":\(found)}" : "\(found)")
                return
            }
            let keyPaths = try (keys.map { Self.list($0) } ?? Self.defaultKeys(entityDescription)).map {
                try QueryKeyPath($0, entity: entityDescription)
            }
            let labels = QueryLabels(labelKey: labelKey)
            let output = OutputStream.standardOutput()
            defer { output.flush() }
            try context.performAndWait {
                request.fetchBatchSize = 500
                let objects = try context.fetchLazily(request)
                let printer = QueryPrinter(keyPaths: keyPaths, labels: labels, output: output)
                switch format {
                case .table: printer.table(objects)
                case .csv: printer.csv(objects)
                case .json: printer.json(objects)
                }
            }
        }
    }

    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Every stored property, attributes first, each group in the model's order.
    static func defaultKeys(_ entity: NSEntityDescription) -> [String] {
        let properties = entity.properties.filter { !$0.isTransient }
        return properties.filter { $0 is NSAttributeDescription }.map(\.name)
            + properties.filter { $0 is NSRelationshipDescription }.map(\.name)
    }

    /// Parses a predicate, failing with the column where parsing stopped and a caret under it.
    static func parsePredicate(_ text: String, entity: NSEntityDescription) throws -> NSPredicate {
        do {
            return try NSPredicate.parse(format: text)
        } catch {
            let description = String(describing: error)
            // "expected … at offset N ("format"), found …"
            guard let range = description.range(of: #" at offset (\d+) "#, options: .regularExpression) else {
                throw StoreToolFailure("predicate: \(description)")
            }
            let offset = Int(description[range].filter(\.isNumber)) ?? 0
            let expected = description[..<range.lowerBound]
            let found = description.range(of: "), found ").map { description[$0.upperBound...] } ?? ""
            throw StoreToolFailure(
                "predicate: \(expected), found \(found) at column \(offset + 1)",
                details: ["  " + text, "  " + String(repeating: " ", count: offset) + "^"])
        }
    }
}

/// A key path checked against the model: each step a property of the entity reached so far.
struct QueryKeyPath {
    let text: String
    let components: [String]
    /// The last property: an attribute, or a relationship shown by its objects' labels.
    let last: NSPropertyDescription

    init(_ text: String, entity: NSEntityDescription) throws {
        self.text = text
        components = text.split(separator: ".").map(String.init)
        var current = entity
        var found: NSPropertyDescription?
        for (index, component) in components.enumerated() {
            guard let property = current.propertiesByName[component] ?? Self.subentityProperty(component, of: current) else {
                throw StoreToolFailure("unknown key '\(text)': \(current.name ?? "?") has no property '\(component)'")
            }
            found = property
            if let relationship = property as? NSRelationshipDescription, let destination = relationship.destinationEntity {
                current = destination
            } else if index < components.count - 1 {
                throw StoreToolFailure("unknown key '\(text)': \(current.name ?? "?").\(component) is an attribute")
            }
        }
        guard let found else { throw StoreToolFailure("unknown key '\(text)'") }
        last = found
    }

    private static func subentityProperty(_ name: String, of entity: NSEntityDescription) -> NSPropertyDescription? {
        for sub in entity.subentities {
            if let property = sub.propertiesByName[name] ?? subentityProperty(name, of: sub) { return property }
        }
        return nil
    }

    /// Whether the path passes through (or ends at) a to-many relationship: its value is a list.
    func isList(from entity: NSEntityDescription) -> Bool {
        var current: NSEntityDescription? = entity
        for component in components {
            guard let relationship = current?.relationshipsByName[component] else { continue }
            if relationship.isToMany { return true }
            current = relationship.destinationEntity
        }
        return false
    }

    /// The values the path reaches from an object, flattened through to-many relationships
    /// (unordered ones in their objects' id order, so that output is stable).
    func values(from object: NSManagedObject) -> [Any] {
        var current: [Any] = [object]
        for component in components {
            var next: [Any] = []
            for item in current {
                guard let managed = item as? NSManagedObject, managed.entity.propertiesByName[component] != nil,
                    let value = managed.value(forKey: component)
                else { continue }
                if let ordered = value as? NSOrderedSet {
                    next.append(contentsOf: ordered.array)
                } else if let set = value as? NSSet {
                    let members = set.allObjects.compactMap { $0 as? NSManagedObject }
                    next.append(
                        contentsOf: members.sorted {
                            GraphValueCoding.idOrder($0.objectID.toolIdentifier, $1.objectID.toolIdentifier)
                        })
                } else {
                    next.append(value)
                }
            }
            current = next
        }
        return current
    }
}

/// How related objects are named in query output.
struct QueryLabels {
    let labelKey: String?

    func label(_ object: NSManagedObject) -> String {
        let entity = object.entity
        if let labelKey, entity.attributesByName[labelKey] != nil, let value = object.value(forKey: labelKey) {
            return QueryValues.text(value)
        }
        if labelKey == nil,
            let first = entity.properties.first(where: {
                ($0 as? NSAttributeDescription)?.attributeType == .stringAttributeType && !$0.isTransient
            }),
            let value = object.value(forKey: first.name) as? String
        {
            return value
        }
        return object.objectID.toolIdentifier
    }
}

/// Values as text and as JSON for people reading query output.
enum QueryValues {
    nonisolated(unsafe) static let dates: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    static func text(_ value: Any) -> String {
        switch value {
        case let text as String: text
        case let date as Date: dates.string(from: date)
        case let data as Data: data.count <= 24 ? data.base64EncodedString() : "<\(data.count) bytes>"
        case let uuid as UUID: uuid.uuidString
        case let url as URL: url.absoluteString
        case let bool as Bool: bool ? "true" : "false"
        case let decimal as Decimal: decimal.description
        case let double as Double: double.description
        case let float as Float: float.description
        default: String(describing: value)
        }
    }

    /// A JSON value: numbers and booleans as themselves, everything else as text.
    static func json(_ value: Any) -> String {
        switch value {
        case let bool as Bool: bool ? "true" : "false"
        case is Int16, is Int32, is Int64, is Int: "\(value)"
        case let double as Double where double.isFinite: double.description
        case let float as Float where float.isFinite: Double(float).description
        case let data as Data: JSONText.string(data.base64EncodedString())
        default: JSONText.string(text(value))
        }
    }
}
