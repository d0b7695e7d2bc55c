import Foundation

/// Ordering of values and rows in memory, as the stores that keep rows in memory sort, and
/// as results of several stores are merged. `nil` sorts first, as NULL does in SQLite.
enum InMemorySort {
    static func sorted(_ snapshots: [Snapshot], by keys: [FetchPlan.SortKey], entity: NSEntityDescription) -> [Snapshot] {
        guard !keys.isEmpty else { return snapshots }
        return snapshots.sorted { a, b in
            for key in keys {
                let result = compare(value(of: a, key: key.key), value(of: b, key: key.key))
                if result != .orderedSame { return key.ascending ? result == .orderedAscending : result == .orderedDescending }
            }
            return false
        }
    }

    static func value(of snapshot: Snapshot, key: String) -> Any? {
        guard let index = snapshot.objectID.entity.layout.indexByName[key] else { return nil }
        return snapshot.values[index]
    }

    static func compare(_ a: Any?, _ b: Any?) -> ComparisonResult {
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case let (x as String, y as String): return order(Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8)), x == y)
        case let (x as Date, y as Date): return order(x < y, x == y)
        case let (x as Bool, y as Bool): return order(!x && y, x == y)
        case let (x as Decimal, y as Decimal): return order(x < y, x == y)
        case let (x as UUID, y as UUID): return compare(x.uuidString, y.uuidString)
        case let (x as URL, y as URL): return compare(x.absoluteString, y.absoluteString)
        case let (x as Data, y as Data): return order(x.lexicographicallyPrecedes(y), x == y)
        case let (x as NSManagedObjectID, y as NSManagedObjectID): return order(x.primaryKey < y.primaryKey, x == y)
        default:
            if let x = a.flatMap(NumberValue.double), let y = b.flatMap(NumberValue.double) { return order(x < y, x == y) }
            return compare(a.map { String(describing: $0) }, b.map { String(describing: $0) })
        }
    }

    private static func order(_ less: Bool, _ equal: Bool) -> ComparisonResult {
        equal ? .orderedSame : (less ? .orderedAscending : .orderedDescending)
    }
}
