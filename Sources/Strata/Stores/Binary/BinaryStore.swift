import Foundation

/// A store that keeps the whole object graph in one file, read when the store is added and
/// replaced atomically (written beside, then renamed over) at every save.
///
/// The file is a binary property list of Strata's own design: Apple's binary store format
/// (a keyed archive of Core Data's private classes) is undocumented. See DEVIATIONS.md.
final class BinaryStore: InMemoryStore, @unchecked Sendable {
    override var type: String { NSBinaryStoreType }

    private static let formatKey = "StrataBinaryStoreFormat"
    private static let formatVersion = 1

    override func open(model: NSManagedObjectModel) throws {
        guard let url else { throw CoreDataError.make(NSPersistentStoreOpenError, "The binary store needs a URL.") }
        guard try StoreFile.check(url, readOnly: isReadOnly) else {
            try super.open(model: model)
            try persist(state.withLock { $0 })
            return
        }
        let file = try Self.readFile(at: url)
        try checkCompatibility(of: file.metadata, with: model)
        identifier = file.uuid
        var metadata = file.metadata
        metadata[NSStoreUUIDKey] = file.uuid
        metadata[NSStoreTypeKey] = NSBinaryStoreType
        self.loadMetadata(metadata)
        var loaded = State()
        loaded.lastKeys = file.lastKeys
        let numbers = file.historyNumbers + [0, 0, 0]
        loaded.history = InMemoryHistory(
            plist: file.history, last: (numbers[0], numbers[1], numbers[2]), entities: model.entitiesByName,
            objectID: objectID(entity:primaryKey:))
        let entities = model.entitiesByName
        for row in file.rows {
            guard let name = row["entity"] as? String, let entity = entities[name],
                let key = (row["key"] as? NSNumber)?.int64Value, let version = (row["version"] as? NSNumber)?.int64Value
            else { throw Self.damaged(url) }
            let id = objectID(entity: entity, primaryKey: key)
            let stored = (row["values"] as? [String: Any]) ?? [:]
            let layout = entity.layout
            var values = ValueRow(shape: layout.valueShape)
            for index in layout.persistentIndexes {
                values[index] = PropertyListValues.decode(
                    stored[layout.properties[index].name], index: index, layout: layout, entities: entities,
                    objectID: objectID(entity:primaryKey:))
            }
            loaded.rows[id] = Snapshot(objectID: id, version: version, values: values)
        }
        state.withLock { $0 = loaded }
    }

    override func persist(_ state: State) throws {
        guard let url else { return }
        var stored = metadata ?? [:]
        stored[NSStoreUUIDKey] = nil
        let rows: [[String: Any]] = try state.rows.values.sorted { $0.objectID.primaryKey < $1.objectID.primaryKey }.map { row in
            let layout = row.objectID.entity.layout
            var values: [String: Any] = [:]
            for index in layout.persistentIndexes {
                if let value = try PropertyListValues.encode(row.values[index], index: index, layout: layout) {
                    values[layout.properties[index].name] = value
                }
            }
            return [
                "entity": row.objectID.entity.name ?? "", "key": NSNumber(value: row.objectID.primaryKey),
                "version": NSNumber(value: row.version), "values": values,
            ]
        }
        var file: [String: Any] = [
            Self.formatKey: Self.formatVersion, "uuid": identifier ?? "", "metadata": stored,
            "lastKeys": state.lastKeys.mapValues { NSNumber(value: $0) }, "rows": rows,
        ]
        if tracksHistory || state.history.lastTransaction > 0 {
            let history = state.history
            file["history"] = try history.plist()
            file["historyNumbers"] = [history.lastTransaction, history.lastChange, history.deletedThrough].map {
                NSNumber(value: $0)
            }
        }
        let data = try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw CoreDataError.make(
                NSPersistentStoreSaveError, "The binary store at \(url.path) could not be written: \(error.localizedDescription)",
                userInfo: [NSUnderlyingErrorKey: error, NSURLErrorKey: url])
        }
        metadataNeedsSaving = false
    }

    // MARK: The file

    private struct File {
        var uuid: String
        var metadata: [String: Any]
        var lastKeys: [String: Int64]
        var rows: [[String: Any]]
        /// Persistent history (`InMemoryHistory.plist()`), and its last transaction, change and
        /// deleted transaction numbers.
        var history: [[String: Any]]
        var historyNumbers: [Int64]
    }

    private static func damaged(_ url: URL) -> NSError {
        CoreDataError.make(
            CocoaError.Code.fileReadCorruptFile.rawValue, "The file at \(url.path) is not a Strata binary store.",
            userInfo: [NSURLErrorKey: url])
    }

    private static func readFile(at url: URL) throws -> File {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw CoreDataError.make(
                CocoaError.Code.fileReadUnknown.rawValue, "The binary store at \(url.path) could not be read.",
                userInfo: [NSUnderlyingErrorKey: error, NSURLErrorKey: url])
        }
        guard data.starts(with: Data("bplist00".utf8)),
            let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any],
            (plist[formatKey] as? NSNumber)?.intValue == formatVersion, let uuid = plist["uuid"] as? String
        else { throw damaged(url) }
        let lastKeys = ((plist["lastKeys"] as? [String: Any]) ?? [:]).compactMapValues { ($0 as? NSNumber)?.int64Value }
        return File(
            uuid: uuid, metadata: (plist["metadata"] as? [String: Any]) ?? [:], lastKeys: lastKeys,
            rows: (plist["rows"] as? [[String: Any]]) ?? [], history: (plist["history"] as? [[String: Any]]) ?? [],
            historyNumbers: ((plist["historyNumbers"] as? [Any]) ?? []).compactMap { ($0 as? NSNumber)?.int64Value })
    }

    static func readMetadata(at url: URL) throws -> [String: Any] {
        let file = try readFile(at: url)
        var metadata = file.metadata
        metadata[NSStoreUUIDKey] = file.uuid
        metadata[NSStoreTypeKey] = NSBinaryStoreType
        return metadata
    }

    /// Replaces the metadata in the file, keeping its UUID, rows and keys.
    static func writeMetadata(_ metadata: [String: Any], at url: URL) throws {
        _ = try readFile(at: url)
        let data = try Data(contentsOf: url)
        guard var plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
        else { throw damaged(url) }
        var stored = metadata
        stored[NSStoreUUIDKey] = nil
        stored[NSStoreTypeKey] = NSBinaryStoreType
        plist["metadata"] = stored
        try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0).write(to: url, options: .atomic)
    }
}
