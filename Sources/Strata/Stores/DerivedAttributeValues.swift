import Foundation

/// Derived attributes in the stores without SQL (in-memory and binary): at the end of a save
/// the values the SQLite store's `Z_DA_` triggers would give are computed in Swift, so that
/// every store type agrees. As in SQLite, only the store's rows change: the saved objects
/// keep their stale values until refreshed.
///
/// The forms are those the SQLite store maintains (`SQLiteDerivedAttributes`): a key path of
/// at most one to-one step, with or without `uppercase:`, `lowercase:` or `canonical:`;
/// `@count` and `@sum` over a to-many relationship; `now()`, the time of the save, for rows
/// inserted or updated by it.
enum DerivedAttributeValues {
    /// Recomputes the derived attributes of every row after a save wrote `rows`. Rows whose
    /// values change get a new snapshot (same version: like a trigger, this does not count
    /// as an update) in `rows` and in `result`, whose snapshots the coordinator caches.
    static func apply(
        to rows: inout [NSManagedObjectID: Snapshot], request: StoreSaveRequest, result: inout StoreSaveResult,
        now: Date = Date()
    ) {
        guard
            let model = (request.inserts + request.updates + request.deletes).first?.objectID.entity.managedObjectModel
        else { return }
        var derived: [ObjectIdentifier: [(index: Int, attribute: NSDerivedAttributeDescription)]] = [:]
        for entity in model.entities {
            let layout = entity.layout
            let list = layout.properties.enumerated().compactMap { index, property in
                (property as? NSDerivedAttributeDescription).flatMap { $0.isTransient ? nil : (index, $0) }
            }
            if !list.isEmpty { derived[ObjectIdentifier(entity)] = list }
        }
        guard !derived.isEmpty else { return }
        let saved = Set(result.inserted.map(\.objectID) + request.updates.map(\.objectID))
        let snapshot = rows
        var changed: [Snapshot] = []
        for (id, row) in snapshot {
            guard let list = derived[ObjectIdentifier(id.entity)] else { continue }
            var values = row.values
            var differs = false
            for (index, attribute) in list {
                guard let derivation = attribute.derivation else { continue }
                if case .now = derivation, !saved.contains(id) { continue }
                values[index] = value(of: derivation, for: row, type: attribute.attributeType, rows: snapshot, now: now)
                differs = differs || !same(values[index], row.values[index])
            }
            if differs { changed.append(Snapshot(objectID: id, version: row.version, values: values)) }
        }
        for row in changed { rows[row.objectID] = row }
        result.replaceRows(changed) { fresh, _ in fresh }
    }

    /// The derivation's value for a row, as the attribute's type holds it; `nil` for forms the
    /// stores do not compute.
    static func value(
        of derivation: NSDerivedAttributeDescription.Derivation, for row: Snapshot, type: NSAttributeType,
        rows: [NSManagedObjectID: Snapshot], now: Date
    ) -> Any? {
        let raw: Any?
        switch derivation {
        case .keyPath(let path):
            raw = keyPathValue(path, of: row, rows: rows)
        case .function(let name, let path):
            let value = keyPathValue(path, of: row, rows: rows)
            raw = (value as? String).map { SQLiteDerivedAttributeFunctions.apply(name, to: $0) } ?? value
        case .count(let relationship):
            raw = related(relationship, of: row, rows: rows)?.count
        case .sum(let relationship, let attribute):
            raw = related(relationship, of: row, rows: rows).map { sum(attribute, of: $0) }
        case .now:
            return type == .dateAttributeType ? now : coerce(now.timeIntervalSinceReferenceDate, to: type)
        }
        return raw.flatMap { coerce($0, to: type) }
    }

    /// `name` on the row, or `author.name` through one to-one step.
    private static func keyPathValue(_ path: String, of row: Snapshot, rows: [NSManagedObjectID: Snapshot]) -> Any? {
        let steps = path.split(separator: ".").map(String.init)
        guard (1...2).contains(steps.count) else { return nil }
        var current = row
        if steps.count == 2 {
            // As in SQLite, the attribute must be one of the relationship's destination entity.
            let layout = current.objectID.entity.layout
            guard let index = layout.indexByName[steps[0]], layout.kinds[index] == .toOne,
                (layout.properties[index] as? NSRelationshipDescription)?.destinationEntity?
                    .attributesByName[steps[1]] != nil,
                let target = current.values[index] as? NSManagedObjectID, let destination = rows[target]
            else { return nil }
            current = destination
        }
        let layout = current.objectID.entity.layout
        guard let index = layout.indexByName[steps[steps.count - 1]], layout.kinds[index] == .attribute else {
            return nil
        }
        return current.values[index]
    }

    /// The rows still in the store that a to-many relationship of the row holds.
    private static func related(
        _ relationship: String, of row: Snapshot, rows: [NSManagedObjectID: Snapshot]
    ) -> [Snapshot]? {
        let layout = row.objectID.entity.layout
        guard let index = layout.indexByName[relationship], layout.isToMany(index) else { return nil }
        return (row.values[index] as? [NSManagedObjectID] ?? []).compactMap { rows[$0] }
    }

    /// SQL's `IFNULL(SUM(x), 0)`: integers add up exactly, any fraction makes the sum a
    /// `Double` (a `Decimal` when the values are decimals), and nil values are left out.
    private static func sum(_ attribute: String, of rows: [Snapshot]) -> Any {
        var integer: Int64 = 0
        var double = 0.0
        var decimal = Decimal(0)
        var kind = 0  // 0 integers, 1 doubles, 2 decimals
        for row in rows {
            guard let index = row.objectID.entity.layout.indexByName[attribute], let value = row.values[index] else {
                continue
            }
            switch value {
            case let number as Decimal:
                decimal += number
                kind = 2
            case let number as Double:
                double += number
                kind = max(kind, 1)
            case let number as Float:
                double += Double(number)
                kind = max(kind, 1)
            default:
                if let number = NumberValue.int64(value) { integer &+= number }
            }
        }
        switch kind {
        case 2: return decimal + Decimal(integer) + Decimal(double)
        case 1: return double + Double(integer)
        default: return integer
        }
    }

    private static func coerce(_ value: Any, to type: NSAttributeType) -> Any? {
        ManagedValueCoercion.attributeValue(value, type: type)
    }

    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): (a as? AnyHashable).map { $0 == (b as? AnyHashable) } ?? false
        default: false
        }
    }
}
