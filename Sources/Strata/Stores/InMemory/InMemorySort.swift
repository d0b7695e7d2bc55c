import Foundation

/// Ordering of rows in memory, as the stores that keep rows in memory sort and as results of
/// several stores are merged, with the comparisons SQL uses (`PredicateSortComparison`).
enum InMemorySort {
    static func sorted(
        _ snapshots: [Snapshot], by keys: [FetchPlan.SortKey], value: (Snapshot, String) -> Any? = InMemorySort.value(of:key:)
    ) -> [Snapshot] {
        guard !keys.isEmpty else { return snapshots }
        let rows = snapshots.map { snapshot in (snapshot, keys.map { value(snapshot, $0.key) }) }
        return rows.sorted { a, b in
            for (index, key) in keys.enumerated() {
                let result = PredicateSortComparison.compare(a.1[index], b.1[index], using: key.comparison)
                if result != .orderedSame { return key.ascending ? result == .orderedAscending : result == .orderedDescending }
            }
            return false
        }.map(\.0)
    }

    /// A snapshot's own value for a key (no key paths: rows of other stores are not at hand).
    static func value(of snapshot: Snapshot, key: String) -> Any? {
        guard let index = snapshot.objectID.entity.layout.indexByName[key] else { return nil }
        return snapshot.values[index]
    }
}
