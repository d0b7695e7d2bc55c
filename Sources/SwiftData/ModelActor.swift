import Dispatch
import Foundation

/// What runs a model actor's work: a serial executor that owns the actor's context.
public protocol ModelExecutor: AnyObject, Sendable {
    var modelContext: ModelContext { get }
}

public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// A serial executor of its own queue, holding a context used only there.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "SwiftData.DefaultSerialModelExecutor")

    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        // The context's autosave runs here, between the actor's jobs.
        modelContext.ownerQueue = queue
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor whose work runs where its context lives (`@ModelActor` writes the conformance):
/// background work on models, off the main actor.
public protocol ModelActor: Actor {
    nonisolated var modelContainer: ModelContainer { get }
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialExecutor else {
            preconditionFailure("A model actor's executor must be serial")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model of an identifier in the actor's context, if it is of the type.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.model(for: id) as? T
    }
}
