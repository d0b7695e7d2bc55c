import Foundation

/// Export and import of the whole graph, which no single aggregate owns.
public protocol ArchiveRepository: Sendable {
    func exportArchive() async throws -> TodoArchive
    /// All or nothing; see `ArchiveDAO.importArchive(_:)`.
    func importArchive(_ archive: TodoArchive) async throws -> ArchiveDAO.ImportSummary
}

/// The archive repository on the local store alone.
public final class LocalArchiveRepository: ArchiveRepository {
    private let archiveDAO: ArchiveDAO

    public init(persistence: PersistenceController) {
        archiveDAO = ArchiveDAO(persistence: persistence)
    }

    public func exportArchive() async throws -> TodoArchive {
        try await archiveDAO.export()
    }

    public func importArchive(_ archive: TodoArchive) async throws -> ArchiveDAO.ImportSummary {
        try await archiveDAO.importArchive(archive)
    }
}
