import Foundation
import Testing
import TodoKit

/// The kinds of store every data-layer test runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
    case inMemory
    case sqlite

    var testDescription: String { rawValue }
}

/// A store for one test: in memory, or a SQLite file in a temporary folder removed at the end.
final class TestStore {
    let services: TodoServices
    let persistence: PersistenceController
    private let folder: URL?

    init(_ kind: StoreKind) throws {
        switch kind {
        case .inMemory:
            folder = nil
            services = try TodoServices(store: .inMemory)
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todokit-tests-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            services = try TodoServices(store: .sqlite(folder.appendingPathComponent("Todos.sqlite")))
        }
        persistence = services.persistence
    }

    /// The SQLite file, for reopening it.
    var sqliteURL: URL? { folder?.appendingPathComponent("Todos.sqlite") }

    var todoDAO: TodoDAO { TodoDAO(persistence: persistence) }
    var tagDAO: TagDAO { TagDAO(persistence: persistence) }
    var locationDAO: LocationDAO { LocationDAO(persistence: persistence) }
    var archiveDAO: ArchiveDAO { ArchiveDAO(persistence: persistence) }

    deinit {
        if let folder {
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
