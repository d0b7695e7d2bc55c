import CoreData
import Foundation
import SyncTestSupport
import Testing

/// `STRATA_SYNC_FIGURES=1`: the figures tests run (they take a while).
private let syncFiguresEnabled = ProcessInfo.processInfo.environment["STRATA_SYNC_FIGURES"] == "1"

extension SyncClientTests {
    /// The figures of BENCHMARKS.md's "Sync" section (issue 24 item 7), measured only when
    /// `STRATA_SYNC_FIGURES=1` (they take a while): 100k to-dos uploaded from one store and
    /// downloaded into an empty one, and how soon a connected client sees another's change.
    @Suite(
        .enabled(if: syncFiguresEnabled, "the sync figures are measured only with STRATA_SYNC_FIGURES=1"),
        .enabled(if: TestPostgres.isAvailable, "PostgreSQL is absent")
    ) struct FiguresTests {
        private let scratch = Scratch()
        private static let count = Int(ProcessInfo.processInfo.environment["STRATA_SYNC_FIGURES_COUNT"] ?? "") ?? 100_000

        @Test func uploadAndDownloadOf100kObjects() async throws {
            let backend = try await Backend.start()
            defer { Task { await backend.stop() } }
            let source = try SyncClientTests.container(at: scratch.file("source.sqlite"), backend: backend)
            let context = source.newBackgroundContext()
            try context.performAndWait {
                for index in 0..<Self.count {
                    let habit = NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context)
                    habit.setValue("Habit number \(index)", forKey: "title")
                    habit.setValue(Int64(index), forKey: "streak")
                    habit.setValue(index % 10 == 0, forKey: "isExample")
                    habit.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "createdAt")
                }
                try context.save()
            }
            let uploadStart = Date()
            try await source.syncNow()
            let upload = Date().timeIntervalSince(uploadStart)
            let target = try SyncClientTests.container(at: scratch.file("target.sqlite"), backend: backend)
            let downloadStart = Date()
            try await target.syncNow()
            let download = Date().timeIntervalSince(downloadStart)
            #expect(try SyncClientTests.count("Habit", in: target) == Self.count)
            print(
                "SYNC FIGURE upload \(Self.count): \(String(format: "%.2f", upload)) s; download: \(String(format: "%.2f", download)) s"
            )
        }

        @Test func latencyOfAChangeSeenByAnotherConnectedClient() async throws {
            let backend = try await Backend.start()
            defer { Task { await backend.stop() } }
            let a = try SyncClientTests.container(at: scratch.file("a.sqlite"), backend: backend, automatic: true)
            let b = try SyncClientTests.container(at: scratch.file("b.sqlite"), backend: backend, automatic: true)
            try await Task.sleep(nanoseconds: 1_000_000_000)
            var latencies: [Double] = []
            for round in 0..<30 {
                let start = Date()
                try SyncClientTests.change(a) { context in
                    NSEntityDescription.insertNewObject(forEntityName: "Habit", into: context).setValue(
                        "r\(round)", forKey: "title")
                }
                while try SyncClientTests.count("Habit", in: b) <= round, Date().timeIntervalSince(start) < 30 {
                    try await Task.sleep(nanoseconds: 5_000_000)
                }
                latencies.append(Date().timeIntervalSince(start))
            }
            a.stopSyncing()
            b.stopSyncing()
            let sorted = latencies.sorted()
            #expect(sorted.count == 30)
            print(
                "SYNC FIGURE latency p50 \(String(format: "%.3f", sorted[15])) s, p90 \(String(format: "%.3f", sorted[27])) s, "
                    + "max \(String(format: "%.3f", sorted[29])) s")
        }
    }
}
