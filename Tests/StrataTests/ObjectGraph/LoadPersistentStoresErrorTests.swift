import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// `loadPersistentStores(completionHandler:)` reports a store that cannot be opened as an
    /// `NSError` in `NSCocoaErrorDomain`, adds no store, and leaves the files as they were.
    @Suite struct LoadPersistentStoresErrorTests {
        private let scratch = ScratchDirectory()

        /// A container of the library model whose one store description is SQLite at `url`.
        private func container(
            at url: URL, model: NSManagedObjectModel = libraryModel(),
            configure: (NSPersistentStoreDescription) -> Void = { _ in }
        ) -> NSPersistentContainer {
            let container = NSPersistentContainer(name: "Library", managedObjectModel: model)
            let description = NSPersistentStoreDescription(url: url)
            configure(description)
            container.persistentStoreDescriptions = [description]
            return container
        }

        /// Loads the container's one store and returns the error it reported.
        private func loadError(_ container: NSPersistentContainer) throws -> NSError {
            let errors = loadStores(of: container)
            try #require(errors.count == 1, "the handler runs once per description")
            let error = try #require(errors[0], "loading reports an error")
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
            return error
        }

        @Test func aMissingDirectoryIsReported() throws {
            let url = scratch.url.appendingPathComponent("missing/deeper/library.sqlite")
            _ = try loadError(container(at: url))
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }

        @Test func aDirectoryThatIsNotWritableIsReported() throws {
            let directory = scratch.file("read-only")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path) }
            guard !FileManager.default.isWritableFile(atPath: directory.path) else {
                print("NOTICE: \(directory.path) is writable despite mode 0555 (running as root?); not asserted")
                return
            }
            let url = directory.appendingPathComponent("library.sqlite")
            _ = try loadError(container(at: url))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test func aFileThatIsNotADatabaseIsReportedAndLeftUnchanged() throws {
            let url = scratch.file("library.sqlite")
            let line = "This is a text file, not a database. "
            let text = String(String(repeating: line, count: 4096 / line.utf8.count + 1).prefix(4096))
            let original = Data(text.utf8)
            #expect(original.count == 4096)
            try original.write(to: url)

            _ = try loadError(container(at: url))
            #expect(try Data(contentsOf: url) == original)
            for suffix in ["-wal", "-shm", "-journal"] {
                #expect(!FileManager.default.fileExists(atPath: url.path + suffix), "no \(suffix) beside the file")
            }
        }

        @Test func aStoreOfAnotherModelIsReportedAsIncompatible() throws {
            let url = scratch.file("library.sqlite")
            let library = libraryModel()
            let writer = try Stack(library, at: url)
            let context = writer.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                novel.title = "Dune"
                try context.save()
            }
            try writer.close()

            let error = try loadError(
                container(at: url, model: unrelatedModel()) { description in
                    description.shouldMigrateStoreAutomatically = false
                    description.shouldInferMappingModelAutomatically = false
                })
            #expect(error.code == 134100)  // NSPersistentStoreIncompatibleVersionHashError

            let reader = try Stack(library, at: url)
            let readContext = reader.newContext()
            let titles = try readContext.performAndWait {
                try fetchAll(Novel.self, "Novel", in: readContext).compactMap(\.title)
            }
            #expect(titles == ["Dune"])
        }

        @Test func aStoreInAnExistingWritableDirectoryLoads() throws {
            let url = scratch.file("library.sqlite")
            let first = container(at: url)
            #expect(loadStores(of: first).map { $0 == nil } == [true])
            #expect(first.persistentStoreCoordinator.persistentStores.count == 1)
            #expect(first.persistentStoreCoordinator.persistentStores.first?.url?.path == url.path)
            #expect(FileManager.default.fileExists(atPath: url.path))
        }
    }
}
