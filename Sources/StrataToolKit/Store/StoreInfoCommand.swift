import ArgumentParser
import Foundation
import Strata

/// `strata store info STORE [--model M]`: what a store is and holds.
struct StoreInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a store's type, UUID, metadata, model version, entities with counts, history and size.",
        discussion: """
            The model version is the one of the given model file whose entity version hashes match \
            the store's; without --model the store's own identifiers and cached model are used.

            Examples:
              strata store info Todos.sqlite
              strata store info Todos.sqlite --model Todos.xcdatamodeld --json
            """
    )

    @OptionGroup var arguments: StoreArguments

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func run() throws {
        try StoreTool.run {
            let opened = try StoreOpening.openReadOnly(arguments.store, modelPath: arguments.model)
            defer { opened.close() }
            let info = try StoreInfo(opened)
            print(json ? try JSONText.document(info.dictionary) : info.text)
        }
    }
}

/// The facts `strata store info` prints.
struct StoreInfo {
    var path: String
    var type: String
    var uuid: String
    var frameworkVersion: Any?
    var versionIdentifiers: [String]
    var customMetadata: [String: String]
    var modelSource: String
    var modelVersion: String?
    var entities: [(name: String, parent: String?, abstract: Bool, count: Int)]
    var history: Bool
    var sizes: [(name: String, bytes: Int64)]

    init(_ opened: OpenedStore) throws {
        let metadata = opened.metadata
        path = opened.originalURL.path
        type = (metadata[NSStoreTypeKey] as? String) ?? NSSQLiteStoreType
        uuid = (metadata[NSStoreUUIDKey] as? String) ?? ""
        frameworkVersion = metadata["NSPersistenceFrameworkVersion"]
        versionIdentifiers = ((metadata[NSStoreModelVersionIdentifiersKey] as? [Any])?.map { "\($0)" } ?? []).filter {
            !$0.isEmpty
        }
        let known: Set<String> = [
            NSStoreTypeKey, NSStoreUUIDKey, "NSPersistenceFrameworkVersion", NSStoreModelVersionHashesKey,
            NSStoreModelVersionIdentifiersKey, "NSStoreModelVersionHashesVersion", "NSStoreModelVersionHashesDigest",
            "NSStoreModelVersionChecksumKey", "_NSAutoVacuumLevel",
        ]
        customMetadata = [:]
        for (key, value) in metadata where !known.contains(key) {
            customMetadata[key] = String(String(describing: value).prefix(80))
        }
        modelSource = opened.modelSource
        modelVersion = opened.modelVersionName
        let context = opened.newContext()
        entities = try context.performAndWait {
            try opened.model.entities.sorted { ($0.name ?? "") < ($1.name ?? "") }.map { entity in
                let request = NSFetchRequest<NSFetchRequestResult>(entityName: entity.name ?? "")
                request.includesSubentities = false
                return (entity.name ?? "", entity.superentity?.name, entity.isAbstract, try context.count(for: request))
            }
        }
        history = StoreOpening.hasHistoryTables(opened.url)
        sizes = []
        let original = opened.originalURL
        for suffix in ["", "-wal", "-shm"] {
            let file = original.path + suffix
            if let attributes = try? FileManager.default.attributesOfItem(atPath: file) {
                sizes.append((original.lastPathComponent + suffix, (attributes[.size] as? NSNumber)?.int64Value ?? 0))
            }
        }
        let external = StoreOpening.externalDataFolder(of: original)
        if let files = try? FileManager.default.contentsOfDirectory(atPath: external.path) {
            var bytes: Int64 = 0
            for file in files {
                let attributes = try? FileManager.default.attributesOfItem(atPath: external.appendingPathComponent(file).path)
                bytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            }
            sizes.append(("external data (\(files.count) files)", bytes))
        }
    }

    var totalSize: Int64 { sizes.reduce(0) { $0 + $1.bytes } }

    var dictionary: [String: Any] {
        var model: [String: Any] = ["source": modelSource, "versionIdentifiers": versionIdentifiers]
        if let modelVersion { model["version"] = modelVersion }
        var result: [String: Any] = [
            "path": path, "type": type, "uuid": uuid, "model": model, "history": history,
            "metadata": customMetadata,
            "entities": entities.map { entity -> [String: Any] in
                var item: [String: Any] = ["name": entity.name, "count": entity.count, "abstract": entity.abstract]
                if let parent = entity.parent { item["parent"] = parent }
                return item
            },
            "size": ["total": totalSize, "files": Dictionary(uniqueKeysWithValues: sizes.map { ($0.name, $0.bytes) })],
        ]
        if let frameworkVersion { result["frameworkVersion"] = frameworkVersion }
        return result
    }

    var text: String {
        var lines = [
            "store:      \(path)",
            "type:       \(type)",
            "uuid:       \(uuid)",
        ]
        if let frameworkVersion { lines.append("framework:  \(frameworkVersion)") }
        lines.append("model:      \(modelSource)" + (modelVersion.map { " (version \($0))" } ?? ""))
        if !versionIdentifiers.isEmpty { lines.append("version identifiers: \(versionIdentifiers.joined(separator: ", "))") }
        lines.append("history:    \(history ? "on" : "off")")
        lines.append("size:       \(ByteText.format(totalSize))")
        for size in sizes { lines.append("  \(size.name): \(ByteText.format(size.bytes))") }
        if !customMetadata.isEmpty {
            lines.append("metadata:")
            for key in customMetadata.keys.sorted() { lines.append("  \(key) = \(customMetadata[key] ?? "")") }
        }
        lines.append("entities:")
        let width = entities.map(\.name.count).max() ?? 0
        for entity in entities {
            var line = "  " + entity.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(entity.count)"
            if entity.abstract { line += "  (abstract)" }
            if let parent = entity.parent { line += "  (subentity of \(parent))" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

/// Byte counts for people.
enum ByteText {
    static func format(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f", value) + " \(units[unit]) (\(bytes) bytes)"
    }
}
