import Foundation
import GRDB
import Testing

@testable import Strata

extension HistoryTests {
    /// `.NSPersistentStoreRemoteChange` for changes made by another coordinator or another
    /// process, and history and data agreeing after a writing process is killed mid-save.
    @Suite struct RemoteChangeTests {
        private let scratch = Scratch()

        /// The built `strata-history-writer`, beside the test runner.
        static let writer = BuiltExecutable.named("strata-history-writer")

        /// Collects the remote change notifications posted for one coordinator.
        final class Observer: @unchecked Sendable {
            private let lock = NSLock()
            private var received: [Notification] = []
            private var token: (any NSObjectProtocol)?

            init(_ coordinator: NSPersistentStoreCoordinator) {
                token = NotificationCenter.default.addObserver(
                    forName: .NSPersistentStoreRemoteChange, object: coordinator, queue: nil
                ) { [weak self] notification in
                    self?.lock.withLock { self?.received.append(notification) }
                }
            }

            deinit { token.map(NotificationCenter.default.removeObserver) }

            var notifications: [Notification] { lock.withLock { received } }

            /// Waits up to `seconds` until `count` notifications have come; returns the last of
            /// those (`nil` if fewer came).
            func wait(seconds: Double, count: Int = 1) -> Notification? {
                let deadline = Date().addingTimeInterval(seconds)
                while Date() < deadline {
                    let received = notifications
                    if received.count >= count { return received[count - 1] }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                let received = notifications
                return received.count >= count ? received[count - 1] : nil
            }
        }

        /// Apple's store posts for every write to it, its own coordinator's too (issue 32): the
        /// observer that merges history into the view context depends on it.
        @Test func ownSavesAndAnotherCoordinatorsSavesAreBothPosted() throws {
            let url = scratch.file("shared.sqlite")
            let watched = try Stack(at: url, remote: true)
            let observer = Observer(watched.coordinator)
            try HistoryTests.insertItem("mine", in: watched.context(author: "me"))
            let own = try #require(observer.wait(seconds: 10), "no notification for the store's own save")
            #expect(own.object as? NSPersistentStoreCoordinator === watched.coordinator)
            let ownToken = try #require(own.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
            #expect(ownToken == watched.coordinator.currentPersistentHistoryToken(fromStores: nil))
            #expect(try watched.transactions().map(\.author) == ["me"])

            let other = try Stack(at: url)
            try HistoryTests.insertItem("theirs", in: other.context(author: "other"))
            let theirs = try #require(observer.wait(seconds: 10, count: 2), "no notification for the other save")
            #expect(theirs.object as? NSPersistentStoreCoordinator === watched.coordinator)
            #expect(theirs.userInfo?[NSStoreUUIDKey] as? String == watched.store.identifier)
            #expect((theirs.userInfo?[NSPersistentStoreURLKey] as? URL)?.path == url.path)
            let token = try #require(theirs.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
            #expect(token == other.coordinator.currentPersistentHistoryToken(fromStores: nil))
            // The token reads as the history of the change.
            #expect(try watched.transactions(after: ownToken).map(\.author) == ["other"])
        }

        /// Batch requests of the store's own coordinator are posted too, with the token of
        /// their transaction, and a burst of saves is told by fewer notifications than saves,
        /// the last with the last token.
        @Test func ownBatchRequestsArePostedAndBurstsAreCoalesced() throws {
            let url = scratch.file("batch.sqlite")
            let watched = try Stack(at: url, remote: true)
            let observer = Observer(watched.coordinator)
            let context = watched.context(author: "importer")
            let insert = NSBatchInsertRequest(
                entityName: "HistItem", objects: (0..<50).map { ["title": "row \($0)", "rank": Int64($0)] })
            _ = try context.performAndWait { try context.execute(insert) }
            let posted = try #require(observer.wait(seconds: 10), "no notification for a batch insert")
            let token = try #require(posted.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken)
            #expect(token == watched.coordinator.currentPersistentHistoryToken(fromStores: nil))

            let before = observer.notifications.count
            for index in 0..<40 { _ = try HistoryTests.insertItem("burst \(index)", in: context) }
            let final = watched.coordinator.currentPersistentHistoryToken(fromStores: nil)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline,
                observer.notifications.last?.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken != final
            {
                Thread.sleep(forTimeInterval: 0.02)
            }
            let burst = observer.notifications.count - before
            #expect(observer.notifications.last?.userInfo?[NSPersistentHistoryTokenKey] as? NSPersistentHistoryToken == final)
            #expect(burst >= 1 && burst < 40, "\(burst) notifications for 40 saves")
        }

        @Test func anotherProcesssSaveIsPosted() throws {
            let executable = try #require(Self.writer, "the built strata-history-writer was not found")
            let url = scratch.file("processes.sqlite")
            let watched = try Stack(at: url, remote: true)
            let observer = Observer(watched.coordinator)
            let process = Process()
            process.executableURL = executable
            process.arguments = [url.path, "1"]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            // The other process's commit is posted here as an event, awaited with a generous bound.
            let notification = try #require(observer.wait(seconds: 60))
            #expect(notification.userInfo?[NSPersistentHistoryTokenKey] is NSPersistentHistoryToken)
            let transactions = try watched.transactions()
            #expect(transactions.map(\.author) == ["writer"])
            #expect(transactions.first?.processID == "strata-history-writer")
        }

        /// The transactions of history in the store at `url`, read from another connection (0
        /// before the first).
        private static func savedTransactions(in url: URL) -> Int {
            var configuration = Configuration()
            configuration.readonly = true
            guard let queue = try? DatabaseQueue(path: url.path, configuration: configuration) else { return 0 }
            defer { try? queue.close() }
            return (try? queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ATRANSACTION") ?? 0 }) ?? 0
        }

        /// A process killed at a random moment of its saves leaves every transaction of history
        /// with exactly the rows its changes name, and no row without its transaction.
        @Test func historyAndDataAgreeAfterAProcessIsKilledMidSave() throws {
            let executable = try #require(Self.writer, "the built strata-history-writer was not found")
            for round in 0..<6 {
                let url = scratch.file("killed-\(round).sqlite")
                // The store exists before the writer starts, so that the kill lands in saves.
                try Stack(at: url).close()
                let process = Process()
                process.executableURL = executable
                process.arguments = [url.path, "loop"]
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                // The kill lands at a random moment after the writer's first save: a fixed delay
                // from its start was sometimes spent starting it, in a full run on two cores.
                let deadline = Date().addingTimeInterval(60)
                while Self.savedTransactions(in: url) == 0, process.isRunning, Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.02)
                }
                Thread.sleep(forTimeInterval: Double.random(in: 0..<0.5))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()

                let stack = try Stack(at: url)
                let inserted = try stack.transactions().flatMap { $0.changes ?? [] }.map(\.changedObjectID)
                let context = stack.context()
                let rows = try context.performAndWait {
                    try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "HistItem")).map(\.objectID)
                }
                #expect(!rows.isEmpty, "round \(round): the writer saved nothing before it was killed")
                #expect(Set(inserted) == Set(rows), "round \(round)")
                #expect(inserted.count == rows.count && rows.count % 20 == 0, "round \(round)")
                try stack.close()
            }
        }
    }
}
