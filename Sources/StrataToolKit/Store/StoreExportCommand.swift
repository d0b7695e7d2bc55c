import ArgumentParser
import Foundation
import Strata

/// `strata store export STORE [--output FILE]`: the whole object graph as JSON.
struct StoreExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a store's whole object graph as JSON.",
        discussion: """
            Objects are grouped by entity, one per line; relationships name the related objects' \
            ids (Entity/pN), binary and transformable data are base64, dates are seconds since \
            2001-01-01 (exact), decimals are strings. `strata store import` reads the file back.

            Examples:
              strata store export Todos.sqlite --output todos.json
              strata store export Todos.sqlite --model Todos.xcdatamodeld | jq '.entities.Todo | length'
            """
    )

    @OptionGroup var arguments: StoreArguments

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    func run() throws {
        try StoreTool.run {
            let opened = try StoreOpening.openReadOnly(arguments.store, modelPath: arguments.model)
            defer { opened.close() }
            let stream = try output.map(OutputStream.file(atPath:)) ?? .standardOutput()
            defer { stream.close() }
            try GraphExport(store: opened, output: stream).run()
        }
    }
}

/// `strata store import FILE STORE [--model M]`: an export read into a store, all or nothing.
struct StoreImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read an export into a store, all or nothing.",
        discussion: """
            The store is made when it does not exist (then --model is needed). Everything is saved \
            at once into a copy that replaces the store only when the save succeeds: after any \
            error the store is unchanged. Into an empty store objects keep their ids.

            Examples:
              strata store import todos.json New.sqlite --model Todos.xcdatamodeld
              strata store export Old.sqlite | strata store import - Copy.sqlite --model Todos.xcdatamodeld
            """
    )

    @Argument(help: ArgumentHelp("The export to read (- for standard input).", valueName: "file"))
    var file: String

    @Argument(help: ArgumentHelp("The store to import into (made when missing).", valueName: "store"))
    var store: String

    @Option(
        help: ArgumentHelp(
            "The model (.xcdatamodeld, .xcdatamodel, .momd); default: the store's cached model.", valueName: "model"))
    var model: String?

    @Flag(help: "Print a JSON summary.")
    var json = false

    func run() throws {
        try StoreTool.run {
            let data: Data
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let read = FileManager.default.contents(atPath: file) else { throw StoreToolFailure("cannot read \(file)") }
                data = read
            }
            let entities = try GraphImport.parse(data, path: file)
            let count = try Self.importAtomically(entities, store: store, modelPath: model)
            if json {
                print("{\"imported\":\(count),\"store\":\(JSONText.string(store))}")
            } else {
                print("imported \(count) objects into \(store)")
            }
        }
    }

    /// Imports into a temporary copy of the store (or a new store) and puts it in the store's
    /// place only after the save succeeded.
    static func importAtomically(_ entities: [String: [[String: Any]]], store path: String, modelPath: String?) throws -> Int {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let exists = FileManager.default.fileExists(atPath: url.path)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let work = folder.appendingPathComponent(url.lastPathComponent)
        let resolved: ResolvedModel
        var history = false
        if exists {
            let existing = try StoreOpening.existingStore(path)
            let copy = try StoreOpening.temporaryCopy(of: existing)
            defer { try? FileManager.default.removeItem(at: copy.folder) }
            let metadata = try StoreOpening.metadata(of: copy.url, path: path)
            resolved = try StoreOpening.model(path: modelPath, storeURL: copy.url, metadata: metadata)
            try StoreOpening.requireMatch(resolved, metadata: metadata)
            history = StoreOpening.hasHistoryTables(copy.url)
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: resolved.model)
            try coordinator.replacePersistentStore(
                at: work, destinationOptions: nil, withPersistentStoreFrom: copy.url, sourceOptions: nil,
                ofType: NSSQLiteStoreType)
        } else {
            guard modelPath != nil else { throw StoreToolFailure("no store at \(path); give --model to make one") }
            resolved = try StoreOpening.model(path: modelPath, storeURL: nil, metadata: nil)
        }
        let opened = try StoreOpening.openWritable(at: work, model: resolved, history: history)
        let result: (count: Int, transformables: [(attribute: NSAttributeDescription, primaryKey: Int64, bytes: Data)])
        do {
            result = try GraphImport(store: opened, entities: entities).run()
        } catch {
            opened.close()
            throw error
        }
        opened.close()
        if !result.transformables.isEmpty {
            try TransformableColumns(storeURL: work, readOnly: false).write(result.transformables)
        }
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: resolved.model)
        do {
            try coordinator.replacePersistentStore(
                at: url, destinationOptions: nil, withPersistentStoreFrom: work, sourceOptions: nil, ofType: NSSQLiteStoreType)
        } catch {
            throw StoreToolFailure("import: cannot write \(path): \(StoreTool.describe(error))")
        }
        return result.count
    }
}
