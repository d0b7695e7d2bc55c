import Foundation
import Strata
import StrataSyncProtocol

/// A failure of the child itself (not of a verified store): it exits with the message.
struct ChildFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The operations the harness interrupts.
enum Operation: String, CaseIterable {
    case graphSave = "graph-save"
    case batchInsert = "batch-insert"
    case batchUpdate = "batch-update"
    case batchDelete = "batch-delete"
    case lightweightMigration = "migration-lightweight"
    case explicitMigration = "migration-explicit"
    case history = "history"
    case syncImport = "sync-import"
    case syncExport = "sync-export"
    case storeImport = "store-import"

    /// Whether the store is opened with persistent history (as a synced store is).
    var history: Bool { [.history, .syncImport, .syncExport].contains(self) }

    var isMigration: Bool { self == .lightweightMigration || self == .explicitMigration }
}

/// Sizes at scale 1 (release, a few hundred milliseconds per operation); `STRATA_KILL_SCALE`
/// multiplies them.
struct Sizes {
    let scale: Double

    func of(_ count: Int) -> Int { max(1, Int((Double(count) * scale).rounded())) }

    var graphItems: Int { of(6000) }
    var batchRows: Int { of(40000) }
    var historyInserts: Int { of(1600) }
    var syncExportItems: Int { of(600) }
    var syncImportItems: Int { of(2500) }
    var lightweightItems: Int { of(60000) }
    var explicitItems: Int { of(6000) }
    var storeImportItems: Int { of(4000) }
}

/// One operation with one seed: how its store is made, what it does, and the states it may
/// leave.
struct Scenario {
    let operation: Operation
    let folder: URL
    let seed: UInt64
    let sizes: Sizes

    var store: URL { folder.appendingPathComponent("Store.sqlite") }
    var exportFile: URL { folder.appendingPathComponent("import.json") }

    // MARK: The oracle

    /// The three earlier committed saves every store starts with.
    func earlierSaves() -> [Graph] {
        var random = SeededGenerator(seed: seed)
        var base = Graph()
        var saves: [Graph] = []
        for _ in 0..<3 {
            let save = Graph.additions(to: base, lists: 2, tags: 3, items: 60, using: &random)
            base.add(save)
            saves.append(save)
        }
        return saves
    }

    /// What `prepare` saves after the earlier saves, one save per element (several saves for
    /// history, so that the store holds several transactions).
    func preparedSaves(after base: Graph) -> [Graph] {
        var random = SeededGenerator(seed: seed &+ 1)
        switch operation {
        case .batchUpdate, .batchDelete:
            return [Graph.additions(to: base, lists: 0, tags: 0, items: sizes.batchRows, related: false, using: &random)]
        case .history:
            var grown = base
            var saves: [Graph] = []
            for _ in 0..<4 {
                let save = Graph.additions(to: grown, lists: 1, tags: 2, items: sizes.historyInserts / 4, using: &random)
                grown.add(save)
                saves.append(save)
            }
            return saves
        default:
            return []
        }
    }

    /// The graph before the operation.
    func before() -> Graph {
        var graph = Graph()
        for save in earlierSaves() { graph.add(save) }
        for save in preparedSaves(after: graph) { graph.add(save) }
        return graph
    }

    /// The new objects of an operation that adds some (graph save, batch insert, sync import
    /// and export, store import).
    func additions(to base: Graph) -> Graph {
        var random = SeededGenerator(seed: seed &+ 2)
        switch operation {
        case .graphSave: return Graph.additions(to: base, lists: 20, tags: 40, items: sizes.graphItems, using: &random)
        case .batchInsert:
            return Graph.additions(to: base, lists: 0, tags: 0, items: sizes.batchRows, related: false, using: &random)
        case .syncExport: return Graph.additions(to: base, lists: 5, tags: 10, items: sizes.syncExportItems, using: &random)
        case .syncImport:
            // Records name their list by record name; many-to-many links are records of their own,
            // left out here.
            var graph = Graph.additions(to: base, lists: 10, tags: 0, items: sizes.syncImportItems, using: &random)
            let newLists = Set(graph.lists.keys)
            for key in graph.items.keys {
                graph.items[key]?.tags = []
                if let list = graph.items[key]?.list, !newLists.contains(list) { graph.items[key]?.list = newLists.min() }
            }
            return graph
        case .storeImport:
            // The export's objects relate only to each other.
            var graph = Graph.additions(to: base, lists: 10, tags: 20, items: sizes.storeImportItems, using: &random)
            let newLists = Array(graph.lists.keys).sorted()
            let newTags = Set(graph.tags.keys)
            for key in graph.items.keys {
                if let list = graph.items[key]?.list, graph.lists[list] == nil {
                    graph.items[key]?.list = newLists[Int(key) % newLists.count]
                }
                graph.items[key]?.tags.formIntersection(newTags)
            }
            return graph
        default: return Graph()
        }
    }

    /// History's one save: items inserted, some titles changed, some items deleted.
    func historyChange(of base: Graph) -> (inserted: Graph, updated: [Int64], deleted: [Int64]) {
        var random = SeededGenerator(seed: seed &+ 3)
        let inserted = Graph.additions(to: base, lists: 1, tags: 1, items: sizes.historyInserts, using: &random)
        let keys = base.items.keys.sorted()
        let updated = keys.enumerated().filter { $0.offset % 7 == 1 }.map(\.element)
        let deleted = keys.enumerated().filter { $0.offset % 11 == 3 }.map(\.element).filter { !updated.contains($0) }
        return (inserted, updated, deleted)
    }

    /// The graph after the operation.
    func after() -> Graph {
        var graph = before()
        switch operation {
        case .graphSave, .batchInsert, .syncImport, .storeImport: graph.add(additions(to: graph))
        case .syncExport: break
        case .batchUpdate:
            for (key, item) in graph.items where item.rank < 50 {
                graph.items[key]?.note = "batch-updated"
                graph.items[key]?.rank = item.rank + 1000
            }
        case .batchDelete:
            for (key, item) in graph.items where item.rank < 50 { graph.items[key] = nil }
        case .history:
            let change = historyChange(of: graph)
            graph.add(change.inserted)
            for key in change.updated { graph.items[key]?.title = "changed\(key)" }
            for key in change.deleted { graph.items[key] = nil }
        case .lightweightMigration, .explicitMigration: break
        }
        return graph
    }

    /// Sync export's store: the pending objects are saved in `prepare`, exported in `run`.
    func syncExportGraphs() -> (exported: Graph, pending: Graph) {
        var exported = Graph()
        for save in earlierSaves() { exported.add(save) }
        return (exported, additions(to: exported))
    }

    /// The migrations' items: (key, title, count, note).
    func migrationItems() -> [(key: Int64, title: String, count: Int16, note: String)] {
        var random = SeededGenerator(seed: seed)
        let total = operation == .lightweightMigration ? sizes.lightweightItems : sizes.explicitItems
        return (0..<total).map { index in
            (Int64(index + 1), "item\(index + 1)", Int16(random.next() % 1000), "n\(random.next() % 1000)")
        }
    }

    /// The migrations' canonical dumps: version 1, and the migrated store.
    func migrationLines(migrated: Bool) -> [String] {
        migrationItems().map { item in
            if !migrated { return "M \(item.key) \(item.title) \(item.count) \(item.note)" }
            if operation == .lightweightMigration { return "M \(item.key) \(item.title) \(item.count) \(item.note) rating=3" }
            return "M \(item.key) \(item.title.uppercased()) \(item.count) \(item.note)"
        }.sorted()
    }

    /// The two states a kill may leave, as canonical dumps.
    func expectedLines() -> (before: [String], after: [String]) {
        if operation.isMigration { return (migrationLines(migrated: false), migrationLines(migrated: true)) }
        if operation == .syncExport {
            let graphs = syncExportGraphs()
            var all = graphs.exported
            all.add(graphs.pending)
            return (all.lines, all.lines)
        }
        return (before().lines, after().lines)
    }
}
