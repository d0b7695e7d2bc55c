import Foundation
internal import GRDB

/// External binary storage for one save of a SQLite store (STORE-FORMAT §3.7): binary values
/// of attributes that allow external storage and are larger than `threshold` go to files in
/// `.<store file>_SUPPORT/_EXTERNAL_DATA/<UUID>`, and the column holds Apple's 38-byte marker
/// (`0x02`, the UUID's 36 characters, `0x00`); smaller ones stay in the row after `0x01`.
///
/// The files follow the transaction, so that neither a failed save nor a crash leaves a
/// column that names a missing file: new files are complete (written to a temporary name,
/// flushed, renamed) before the transaction commits and removed again when it fails; the
/// files of replaced or deleted values are removed only once the transaction has committed
/// (a crash in between leaves an unreferenced file, never a dangling reference).
final class SQLiteExternalStorage {
    /// Values of more bytes than this are stored in files. Apple's threshold is undocumented
    /// ("about 100 KB"; see DEVIATIONS.md).
    static let threshold = 100 * 1024

    /// The files' folder, `nil` for a store without a URL (values then stay in the row).
    let directory: URL?
    /// Files written by this save, removed if it fails.
    private var written: [URL] = []
    /// Identifiers of files the save makes unreferenced, removed once it has committed.
    private var replaced: Set<String> = []

    init(directory: URL?) {
        self.directory = directory
    }

    /// `.<name>_SUPPORT` beside a store file: the folder of its external data.
    static func supportFolder(of storeURL: URL) -> URL {
        storeURL.deletingLastPathComponent()
            .appendingPathComponent(".\(storeURL.lastPathComponent)_SUPPORT", isDirectory: true)
    }

    /// Runs the save's transaction: removes the files it wrote when it throws, and the files
    /// it replaced once it has returned (committed).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let result: T
        do {
            result = try body()
        } catch {
            for url in written { try? FileManager.default.removeItem(at: url) }
            written = []
            replaced = []
            throw error
        }
        if let directory {
            for identifier in replaced { try? FileManager.default.removeItem(at: directory.appendingPathComponent(identifier)) }
        }
        written = []
        replaced = []
        return result
    }

    // MARK: Writing

    /// The column value of a binary value of an attribute that allows external storage.
    func columnValue(for data: Data) throws -> DatabaseValue {
        guard data.count > Self.threshold, let directory else {
            return (Data([SQLiteValueCodec.inlineMarker]) + data).databaseValue
        }
        let identifier = UUID().uuidString
        try write(data, named: identifier, in: directory)
        return Self.marker(for: identifier).databaseValue
    }

    /// Apple's marker of an external value: `0x02`, the UUID string, `0x00` (38 bytes).
    static func marker(for identifier: String) -> Data {
        Data([SQLiteValueCodec.externalMarker]) + Data(identifier.utf8) + Data([0])
    }

    private func write(_ data: Data, named identifier: String, in directory: URL) throws {
        let manager = FileManager.default
        let file = directory.appendingPathComponent(identifier)
        let temporary = directory.appendingPathComponent(".\(identifier).tmp")
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            guard manager.createFile(atPath: temporary.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path])
            }
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try handle.write(contentsOf: data)
                // On disk before the row that names it can commit.
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            try manager.moveItem(at: temporary, to: file)
            written.append(file)
        } catch {
            try? manager.removeItem(at: temporary)
            throw CoreDataError.make(
                NSPersistentStoreSaveError,
                "The external data file \(file.path) could not be written: \(error.localizedDescription)",
                userInfo: [NSUnderlyingErrorKey: error, NSFilePathErrorKey: file.path])
        }
    }

    // MARK: Replacing and deleting

    /// Notes the files that a row's current values refer to in the columns about to be
    /// overwritten (`changed` positions of an update) or deleted with the row (`changed` nil).
    func noteReplacedFiles(ofRow key: Int64, in entity: SQLiteEntityMapping, changed: [Int]?, db: Database) throws {
        guard directory != nil else { return }
        let positions = changed.map(Set.init)
        let columns = entity.columns.filter { column in
            guard case .attribute(let attribute) = column.binding, Self.usesFiles(attribute) else { return false }
            return positions?.contains(column.index) ?? true
        }
        guard !columns.isEmpty else { return }
        let names = columns.map(\.name).joined(separator: ", ")
        guard let row = try Row.fetchOne(db, sql: "SELECT \(names) FROM \(entity.table) WHERE Z_PK = ?", arguments: [key])
        else { return }
        for index in columns.indices {
            let value: DatabaseValue = row[index]
            if case .blob(let data) = value.storage, let identifier = Self.identifier(inMarker: data) {
                replaced.insert(identifier)
            }
        }
    }

    /// Whether values of the attribute may live in files.
    static func usesFiles(_ attribute: NSAttributeDescription) -> Bool {
        attribute.attributeType == .binaryDataAttributeType && attribute.allowsExternalBinaryDataStorage
    }

    /// The file name in an external marker; `nil` for anything else, and for a name that is
    /// not a UUID (a damaged or hostile column must not name a path outside the folder).
    static func identifier(inMarker data: Data) -> String? {
        guard data.first == SQLiteValueCodec.externalMarker else { return nil }
        let identifier = String(decoding: data.dropFirst().prefix { $0 != 0 }, as: UTF8.self)
        return UUID(uuidString: identifier) == nil ? nil : identifier
    }
}

/// A copy of a store's `_SUPPORT` folder made beside another store, for
/// `replacePersistentStore`: staged before the database is copied, so that a failure to copy
/// the files leaves the destination as it was, and put in place (replacing the destination's
/// folder, or removing it when the source has none) once the database has been copied.
struct StagedSupportFolder {
    /// The copy, `nil` when the source has no folder.
    private let staging: URL?
    private let target: URL
    /// `false` when source and destination are the same store (nothing to replace).
    private let replacesTarget: Bool

    init(copying source: URL, for destination: URL) throws {
        let manager = FileManager.default
        let from = SQLiteExternalStorage.supportFolder(of: source)
        target = SQLiteExternalStorage.supportFolder(of: destination)
        replacesTarget = from.standardizedFileURL.path != target.standardizedFileURL.path
        guard replacesTarget, manager.fileExists(atPath: from.path) else {
            staging = nil
            return
        }
        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent)_SUPPORT-\(UUID().uuidString)", isDirectory: true)
        do {
            try manager.copyItem(at: from, to: staging)
        } catch {
            try? manager.removeItem(at: staging)
            throw error
        }
        self.staging = staging
    }

    /// Replaces the destination's folder with the copy, or removes it when there is no copy.
    func install() throws {
        guard replacesTarget else { return }
        let manager = FileManager.default
        if manager.fileExists(atPath: target.path) { try manager.removeItem(at: target) }
        if let staging { try manager.moveItem(at: staging, to: target) }
    }

    /// Removes the copy if it was not installed.
    func discard() {
        if let staging { try? FileManager.default.removeItem(at: staging) }
    }
}
