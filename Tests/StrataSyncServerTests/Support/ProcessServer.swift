import Foundation
import StrataSyncProtocol
import SyncTestSupport

@testable import Strata
@testable import SyncSimulationSupport

/// The simulation's server as a deployment has it: the built `strata-sync` program on a
/// PostgreSQL database of the schedule's own, one process at a time, always on the same port.
/// Each device is an `NSPersistentCloudKitContainer` store synced by the client's own engine
/// (`SyncEngine`: its export, push over HTTP, pull and import), driven step by step.
///
/// Its failure (`fail(duringSyncOf:)`) starts the device's sync, waits until its push is on
/// its way (the engine's export event starts just before the push request), then, as the
/// schedule's seed picks, stops the server with SIGTERM some microseconds later (a quarter of
/// the time), kills it with SIGKILL the moment its database shows the push's first batch
/// applied (a quarter), or kills it some microseconds later (up to 60 ms: before the push
/// arrives, while it is applied, or after); then waits for the sync to end (a transport
/// error, or an answer that came first) and starts a new process on the same database and
/// port.
final class ProcessServer: SimulatedServer, @unchecked Sendable {
    let databaseURL: String
    let serverURL: URL
    let token: String
    private var process: SyncServerProcess
    private var clients: [ObjectIdentifier: Client] = [:]
    /// What earlier processes logged.
    private var earlierLogs: [String] = []
    private(set) var figures = Figures()

    /// What the schedule's failures were.
    struct Figures: Sendable {
        /// Processes stopped with SIGTERM and killed with SIGKILL, and started again.
        var stops = 0
        var kills = 0
        /// Kills during a push whose batches the server had applied when it died, while the
        /// device still held them (the answer lost): the next push sends them again.
        var answersLost = 0
        /// Kills during a push the server had not applied.
        var pushesLost = 0

        mutating func add(_ other: Figures) {
            stops += other.stops
            kills += other.kills
            answersLost += other.answersLost
            pushesLost += other.pushesLost
        }
    }

    private struct Client {
        let container: NSPersistentCloudKitContainer
        let engine: SyncEngine
    }

    private init(databaseURL: String, process: SyncServerProcess, token: String) {
        self.databaseURL = databaseURL
        self.process = process
        self.serverURL = process.url
        self.token = token
    }

    /// A fresh database and a process serving it.
    static func start() throws -> ProcessServer {
        try SimulationRun.blocking {
            let database = try await TestPostgres.shared.makeDatabase()
            let process = try await SyncServerProcess.start(databaseURL: database)
            return ProcessServer(databaseURL: database, process: process, token: try await TestTokens.token(for: "sim"))
        }
    }

    /// Stops the process and drops the database.
    func stop() {
        clients = [:]
        let process = process
        let database = databaseURL
        _ = try? SimulationRun.blocking {
            process.signal(SIGTERM)
            _ = await process.waitForExit()
            try await TestPostgres.shared.dropDatabase(database)
        }
    }

    // MARK: SimulatedServer

    func makeDevice(at url: URL, model: NSManagedObjectModel) throws -> Device {
        let container = NSPersistentCloudKitContainer(name: "Simulation", managedObjectModel: model)
        let description = NSPersistentStoreDescription(url: url)
        let options = NSPersistentCloudKitContainerOptions(
            containerIdentifier: "iCloud.org.strata.simulation.\(UUID().uuidString)")
        // No server URL here: the container starts no engine of its own; the schedule drives
        // the one below, which syncs this store as the container's would.
        options.useStaticToken(token)
        options.syncsAutomatically = false
        description.cloudKitContainerOptions = options
        container.persistentStoreDescriptions = [description]
        var loadError: (any Error)?
        container.loadPersistentStores { _, error in loadError = error }
        if let loadError { throw loadError }
        guard let store = container.persistentStoreCoordinator.persistentStores.first,
            let metadata = try SyncMetadata(store: store)
        else { throw TestPostgresError(message: "The simulation's store did not open") }
        let device = try Device(store: store)
        let engine = SyncEngine(
            container: container, store: store, metadata: metadata, options: options, serverURL: serverURL)
        clients[ObjectIdentifier(device)] = Client(container: container, engine: engine)
        return device
    }

    private func client(of device: Device) throws -> Client {
        guard let client = clients[ObjectIdentifier(device)] else {
            throw TestPostgresError(message: "A device this server did not make")
        }
        return client
    }

    func push(_ device: Device) throws {
        let engine = try client(of: device).engine
        try SimulationRun.blocking { try await engine.exportCycle() }
    }

    func pull(_ device: Device) throws {
        let engine = try client(of: device).engine
        try SimulationRun.blocking {
            while try await engine.importCycle(wait: 0) {}
        }
    }

    func sync(_ device: Device) throws {
        guard device.online else { return }
        let engine = try client(of: device).engine
        try SimulationRun.blocking { try await engine.synchronize() }
    }

    /// When the failure comes, as the seed picks.
    private enum Moment {
        /// SIGTERM, some microseconds after the push starts.
        case stop(afterMicroseconds: UInt64)
        /// SIGKILL the moment the server has applied the push's first batch (its answer is
        /// most likely still to come).
        case killOnceApplied
        /// SIGKILL some microseconds after the push starts (a push takes tens of milliseconds
        /// here: before it arrives, while it is applied, or after).
        case kill(afterMicroseconds: UInt64)

        init(_ choice: UInt64) {
            let delay = (choice >> 2) % 60_000
            switch choice % 4 {
            case 0: self = .stop(afterMicroseconds: delay)
            case 1: self = .killOnceApplied
            default: self = .kill(afterMicroseconds: delay)
            }
        }
    }

    func fail(duringSyncOf device: Device, index: Int, choice: UInt64) throws -> String {
        let moment = Moment(choice)
        let client = try client(of: device)
        // The push is on its way once the engine's export event starts.
        let pushing = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(
            forName: NSPersistentCloudKitContainer.eventChangedNotification, object: client.container, queue: nil
        ) { notification in
            guard
                let event = notification.userInfo?[NSPersistentCloudKitContainer.eventNotificationUserInfoKey]
                    as? NSPersistentCloudKitContainer.Event,
                event.type == .export, event.endDate == nil
            else { return }
            pushing.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let outcome = Outcome()
        if device.online {
            let engine = client.engine
            Task {
                do {
                    try await engine.synchronize()
                    outcome.set(nil)
                } catch {
                    outcome.set(error)
                }
                pushing.signal()
            }
            pushing.wait()
        }
        var what: String
        switch moment {
        case .stop(let delay), .kill(let delay):
            usleep(UInt32(delay))
            what = device.online ? "\(delay) µs into device \(index)'s push" : "while device \(index) is offline"
        case .killOnceApplied:
            if device.online, let first = try device.outboxBatches().first {
                let applied = try waitUntilApplied(first, of: device)
                what = "the moment device \(index)'s batch \(first) \(applied ? "was applied" : "was not applied in 30 s")"
            } else {
                what = device.online ? "during device \(index)'s sync" : "while device \(index) is offline"
            }
        }
        let graceful: Bool
        if case .stop = moment { graceful = true } else { graceful = false }
        let old = process
        old.signal(graceful ? SIGTERM : SIGKILL)
        let status = try SimulationRun.blocking { await old.waitForExit(seconds: 60) }
        let error = device.online ? outcome.wait() : nil
        earlierLogs += Self.notable(old.log)
        guard let status else { throw TestPostgresError(message: "strata-sync did not end after the signal") }
        if graceful && status != 0 {
            throw TestPostgresError(message: "strata-sync ended with status \(status) after SIGTERM:\n\(old.log)")
        }
        if let error, !absorbs(error) { throw error }
        let (database, port) = (databaseURL, serverURL.port ?? 0)
        self.process = try SimulationRun.blocking { try await SyncServerProcess.start(databaseURL: database, port: port) }

        what = "strata-sync \(graceful ? "stopped (SIGTERM)" : "killed (SIGKILL)") \(what)"
        if graceful { figures.stops += 1 } else { figures.kills += 1 }
        guard let error else { return what + ": its sync had ended" }
        what += ": its sync failed (\((error as NSError).code))"
        // Where the push was: applied with the answer lost (the device still holds batches the
        // server applied), or not applied.
        if !graceful, let first = try device.outboxBatches().first {
            let applied = try lastAppliedBatch(of: device)
            if applied >= first {
                figures.answersLost += 1
                what += ", batches up to \(applied) applied and their answer lost"
            } else {
                figures.pushesLost += 1
                what += ", batch \(first) not applied"
            }
        }
        return what
    }

    /// The device's client ID as SQL text (a UUID the device made: nothing to bind).
    private func clientLiteral(of device: Device) throws -> String {
        let clientID = device.clientID
        guard !clientID.isEmpty, clientID.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            throw TestPostgresError(message: "Unexpected client ID \(clientID)")
        }
        return "'\(clientID)'"
    }

    /// The last batch of the device the server applied (0 for none), read from its database.
    private func lastAppliedBatch(of device: Device) throws -> Int64 {
        let sql = """
            SELECT coalesce(max(last_batch_seq), 0)::text FROM client_batches
            WHERE client_id = \(try clientLiteral(of: device))
            """
        let database = databaseURL
        let values = try SimulationRun.blocking { try await TestPostgres.query(sql, databaseURL: database) }
        return values.first.flatMap { $0.flatMap { Int64($0) } } ?? 0
    }

    /// Waits until the server's database shows the device's batch applied; false after 30 s.
    private func waitUntilApplied(_ batch: Int64, of device: Device) throws -> Bool {
        let sql = """
            SELECT (coalesce(max(last_batch_seq), 0) >= \(batch))::text FROM client_batches
            WHERE client_id = \(try clientLiteral(of: device))
            """
        let database = databaseURL
        return try SimulationRun.blocking { try await TestPostgres.waitUntil(sql, databaseURL: database) }
    }

    /// Transport failures (the process gone, a connection it dropped) and the answers of a
    /// server stopping: the device syncs again later.
    func absorbs(_ error: any Error) -> Bool {
        let error = error as NSError
        let codes: [SyncServerError.Code] = [.networkUnavailable, .networkFailure, .serviceUnavailable, .serverResponseLost]
        return error.domain == SyncServerError.domain && codes.map(\.rawValue).contains(error.code)
    }

    /// The process runs (it is started again at once after each failure).
    func heal() throws {
        guard !process.process.isRunning else { return }
        let (database, port) = (databaseURL, serverURL.port ?? 0)
        process = try SimulationRun.blocking { try await SyncServerProcess.start(databaseURL: database, port: port) }
    }

    func storedRecords() throws -> [RecordState] {
        let client = SyncTestClient(base: serverURL, token: token)
        return try SimulationRun.blocking { try await client.pullAll().records }
    }

    var log: [String] { earlierLogs + Self.notable(process.log) }

    /// The lines of a process's log worth showing with a failure: its start and what went wrong.
    private static func notable(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter {
            $0.contains("listening on") || $0.contains("warning") || $0.contains("error") || $0.contains("critical")
        }
    }

    /// How the sync under way ended (nil: it succeeded).
    private final class Outcome: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var error: (any Error)?

        func set(_ error: (any Error)?) {
            self.error = error
            done.signal()
        }

        /// Waits for the sync to end.
        func wait() -> (any Error)? {
            done.wait()
            return error
        }
    }
}
