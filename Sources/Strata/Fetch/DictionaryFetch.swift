import Foundation

/// A dictionary-result fetch: which columns, grouped how, filtered how. The rows come from
/// the store's answer to the fetch plan (its predicate runs in the store), and the columns,
/// groups, aggregates and `havingPredicate` are computed from them.
struct DictionaryFetch {
    /// A column of the results: a property (or key path through to-one relationships),
    /// or a named expression (`NSExpressionDescription`).
    enum Column {
        case property(name: String, keyPath: String)
        case expression(name: String, ExpressionNode)

        var name: String {
            switch self {
            case .property(let name, _), .expression(let name, _): name
            }
        }
    }

    var plan: FetchPlan
    var columns: [Column]
    var groupBy: [Column]
    var having: PredicateNode?
    var distinct: Bool

    init<T>(request: NSFetchRequest<T>, plan: FetchPlan) throws {
        self.plan = plan
        let entity = plan.entity
        columns = try (request.propertiesToFetch ?? Self.allAttributes(of: entity)).map { try Self.column($0, entity) }
        groupBy = try (request.propertiesToGroupBy ?? []).map { try Self.column($0, entity) }
        having = try request.havingPredicate.map { try PredicateConversion.node(of: $0) }
        distinct = request.returnsDistinctResults
        if !groupBy.isEmpty {
            let grouped = Set(groupBy.map(\.name))
            for column in columns {
                if case .property(let name, _) = column, !grouped.contains(name) {
                    throw CoreDataError.make(
                        NSCoreDataError,
                        "\(name) is fetched but neither grouped by nor an aggregate expression; "
                            + "add it to propertiesToGroupBy.")
                }
            }
        }
    }

    private static func allAttributes(of entity: NSEntityDescription) -> [Any] {
        entity.properties.filter { $0 is NSAttributeDescription && !$0.isTransient }.map(\.name)
    }

    private static func column(_ item: Any, _ entity: NSEntityDescription) throws -> Column {
        switch item {
        case let description as NSExpressionDescription:
            guard let expression = description.expression else {
                throw CoreDataError.make(NSCoreDataError, "The expression description \(description.name) has no expression.")
            }
            return .expression(name: description.name, expression.node)
        case let property as NSPropertyDescription:
            return try keyPathColumn(property.name, entity)
        case let name as String where name == "objectID" && entity.property(named: name) == nil:
            // Apple's name for the object's ID among the columns.
            return .expression(name: name, .evaluatedObject)
        case let name as String:
            return try keyPathColumn(name, entity)
        default:
            throw CoreDataError.make(NSCoreDataError, "propertiesToFetch holds \(item), not a property, name or expression.")
        }
    }

    private static func keyPathColumn(_ keyPath: String, _ entity: NSEntityDescription) throws -> Column {
        var current: NSEntityDescription? = entity
        let parts = keyPath.split(separator: ".").map(String.init)
        for (position, part) in parts.enumerated() {
            guard let property = current?.property(named: part) else {
                throw CoreDataError.make(NSCoreDataError, "\(entity.name ?? "?") has no property \(keyPath).")
            }
            if let relationship = property as? NSRelationshipDescription {
                guard !relationship.isToMany else {
                    throw CoreDataError.make(
                        NSCoreDataError, "\(keyPath) goes through the to-many \(part); fetch it as an aggregate.")
                }
                current = relationship.destinationEntity
            } else if let composite = property as? NSCompositeAttributeDescription, position < parts.count - 1 {
                // `magnitude.richter`: the rest names one of the composite's leaf elements.
                guard CompositeValues.leaf(parts[(position + 1)...], of: composite) != nil else {
                    throw CoreDataError.make(NSCoreDataError, "\(keyPath) names no element of the composite \(part).")
                }
                return .property(name: keyPath, keyPath: keyPath)
            } else if position < parts.count - 1 {
                throw CoreDataError.make(NSCoreDataError, "\(keyPath) goes through the attribute \(part).")
            }
        }
        return .property(name: keyPath, keyPath: keyPath)
    }

    /// Whether the results are groups or aggregates, which the store cannot page.
    var pagesAfterGrouping: Bool { !groupBy.isEmpty || columns.contains(where: Self.isAggregate) || distinct }

    /// The result dictionaries from the rows the plan selected, in their order.
    func results(from rows: [RowReader]) -> [[String: Any]] {
        var output: [[String: Any]]
        if groupBy.isEmpty && columns.contains(where: Self.isAggregate) {
            output = [row(for: rows, sample: rows.first)]
        } else if groupBy.isEmpty {
            output = rows.map { row(for: [$0], sample: $0) }
        } else {
            var order: [[AnyHashable]] = []
            var groups: [[AnyHashable]: [RowReader]] = [:]
            for row in rows {
                let key = groupBy.map { Self.hashable(value(of: $0, in: row)) }
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(row)
            }
            output = order.compactMap { key in groups[key].map { row(for: $0, sample: $0.first) } }
            if let having {
                // A group's columns are its keys, and also its variables: Apple's examples name an
                // aggregate by its expression description's name as `$count`.
                output = output.filter { PredicateEvaluator.evaluate(having, with: $0, variables: $0) }
            }
        }
        if distinct {
            var seen = Set<[String: AnyHashable]>()
            output = output.filter { seen.insert($0.mapValues(Self.hashable)).inserted }
        }
        return output
    }

    private static func isAggregate(_ column: Column) -> Bool {
        guard case .expression(_, let node) = column, case .function(let name, _) = node else { return false }
        return ["sum:", "count:", "min:", "max:", "average:", "median:", "mode:", "stddev:"].contains(name)
    }

    /// One result: grouped and plain columns from the sample row, aggregates over all rows.
    private func row(for rows: [RowReader], sample: RowReader?) -> [String: Any] {
        var result: [String: Any] = [:]
        for column in columns {
            let value: Any?
            if Self.isAggregate(column), case .expression(_, .function(let name, let arguments)) = column {
                let inputs = rows.compactMap { row in arguments.first.flatMap { PredicateEvaluator.value(of: $0, with: row) } }
                let aggregate = ExpressionNode.aggregate(inputs.map { .constant(PredicateArguments.value($0)) })
                value = PredicateEvaluator.value(of: .function(name, [aggregate]), with: nil)
            } else {
                value = sample.flatMap { self.value(of: column, in: $0) }
            }
            if let value { result[column.name] = value }
        }
        return result
    }

    private func value(of column: Column, in row: RowReader) -> Any? {
        switch column {
        case .property(_, let keyPath): row.value(atKeyPath: keyPath)
        case .expression(_, let node): Self.plain(PredicateEvaluator.value(of: node, with: row))
        }
    }

    private static func plain(_ value: Any?) -> Any? {
        (value as? RowReader)?.snapshot.objectID ?? value
    }

    private static func hashable(_ value: Any?) -> AnyHashable {
        (value as? AnyHashable) ?? AnyHashable(String(describing: value))
    }
}

extension NSPersistentStoreCoordinator {
    /// The rows of a dictionary fetch: the store selects and orders them, the columns and
    /// groups are computed from the rows.
    func fetchDictionaries(_ fetch: DictionaryFetch, affectedStores: [NSPersistentStore]?) throws -> [[String: Any]] {
        let grouped = fetch.pagesAfterGrouping
        let snapshots = try fetchSnapshots(grouped ? fetch.plan.unpaged : fetch.plan, affectedStores: affectedStores)
        let source = RowSource(
            row: { [self] id in try? snapshot(for: id) },
            related: { [self] id, relationship in (try? relatedObjectIDs(of: id, relationship: relationship)) ?? [] })
        let results = fetch.results(from: snapshots.map { RowReader(snapshot: $0, rows: source) })
        guard grouped else { return results }
        let plan = fetch.plan
        return Array(results.dropFirst(plan.offset).prefix(plan.limit > 0 ? plan.limit : Int.max))
    }
}
