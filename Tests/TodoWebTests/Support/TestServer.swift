import Foundation
import Testing
import TodoKit
import TodoWeb

/// The kinds of store the API tests run against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case sqlite

    var testDescription: String { rawValue }
}

/// Runs `body` with a `TodoServer` serving in this process on a free port of 127.0.0.1, over a
/// store of its own (a SQLite one in a temporary folder removed afterwards), and stops the
/// server when `body` returns or throws. `keepAliveInterval` is the live events' (short in
/// the tests of pages that go away, which the server notices at its next write).
func withServer<Result: Sendable>(
    _ kind: StoreKind = .inMemory, sample: Bool = false, keepAliveInterval: Duration = .seconds(15),
    _ body: (APIClient) async throws -> Result
) async throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("todoweb-tests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let services: TodoServices
    switch kind {
    case .inMemory:
        services = try TodoServices(store: .inMemory)
    case .sqlite:
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        services = try TodoServices(store: .sqlite(folder.appendingPathComponent("Todos.sqlite")))
    }
    if sample {
        try await SampleData.load(into: services)
    }
    // The server logs its cancellation at the end of each test as an error; only real
    // failures are worth reading here.
    let server = TodoServer(services: services, port: 0, logLevel: .critical, keepAliveInterval: keepAliveInterval)
    let (addresses, continuation) = AsyncStream<String>.makeStream()
    let serving = Task {
        defer { continuation.finish() }
        try await server.runUntilCancelled { address in continuation.yield(address) }
    }
    var iterator = addresses.makeAsyncIterator()
    guard let address = await iterator.next(), let url = URL(string: address) else {
        try await serving.value
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the server stopped before listening"])
    }
    let client = APIClient(base: url, services: services, live: server.liveUpdates)
    do {
        let result = try await body(client)
        try await stop(serving, client)
        return result
    } catch {
        try? await stop(serving, client)
        throw error
    }
}

private func stop(_ serving: Task<Void, any Error>, _ client: APIClient) async throws {
    client.session.finishTasksAndInvalidate()
    serving.cancel()
    try await serving.value
}
