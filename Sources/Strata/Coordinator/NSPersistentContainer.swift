import Foundation

/// The model, coordinator and contexts of an app's data, set up together.
///
/// ```swift
/// let container = NSPersistentContainer(name: "Model")   // finds Model.xcdatamodeld
/// container.loadPersistentStores { description, error in
///     if let error { print("Could not open \(description): \(error)") }
/// }
/// let context = container.viewContext
/// ```
open class NSPersistentContainer: NSObject, @unchecked Sendable {
    /// The container's name; the default store is `<name>.sqlite`.
    open private(set) var name: String
    /// The model of the container's objects.
    open private(set) var managedObjectModel: NSManagedObjectModel
    /// The coordinator of the container's stores.
    open private(set) var persistentStoreCoordinator: NSPersistentStoreCoordinator
    /// The stores `loadPersistentStores` adds; one SQLite store in `defaultDirectoryURL()`
    /// unless changed.
    open var persistentStoreDescriptions: [NSPersistentStoreDescription]
    /// Why the model could not be found, when `init(name:)` found none.
    private var modelProblem: String?

    /// The main-queue context for the user interface, made on first use.
    open var viewContext: NSManagedObjectContext {
        viewContextLock.withLock { context in
            if let context { return context }
            let made = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
            made.persistentStoreCoordinator = persistentStoreCoordinator
            context = made
            return made
        }
    }
    private let viewContextLock = Protected<NSManagedObjectContext?>(nil)

    /// The folder stores go in by default: `$XDG_DATA_HOME/<program>`, else
    /// `$HOME/.local/share/<program>`, else the same under the user's home directory from the
    /// password database, on Linux; Application Support on Apple's systems.
    open class func defaultDirectoryURL() -> URL {
        #if canImport(Darwin)
            let base =
                FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return base.appendingPathComponent(ProcessInfo.processInfo.processName, isDirectory: true)
        #else
            return defaultDirectoryURL(
                environment: ProcessInfo.processInfo.environment, programName: ProcessInfo.processInfo.processName)
        #endif
    }

    /// `defaultDirectoryURL()` on Linux for the given environment, following the XDG base
    /// directory specification: an empty or relative `XDG_DATA_HOME` is ignored, as it says.
    static func defaultDirectoryURL(environment: [String: String], programName: String) -> URL {
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? passwordDatabaseHome()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent(programName, isDirectory: true)
    }

    /// The current user's home directory from the password database, for when `HOME` is not
    /// set (Foundation's `homeDirectoryForCurrentUser` on Linux reads that database and
    /// ignores `HOME`, which is why it is not used first).
    private static func passwordDatabaseHome() -> String {
        FileManager.default.homeDirectory(forUser: NSUserName())?.path
            ?? FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// A container for the model named `<name>.momd`, `.mom`, `.xcdatamodeld` or
    /// `.xcdatamodel`, found in the program's bundles and their resource bundles, next to the
    /// executable, or in the working directory.
    public convenience init(name: String) {
        let found = ContainerModelLocator.model(named: name)
        self.init(name: name, managedObjectModel: found.model ?? NSManagedObjectModel())
        modelProblem = found.problem
    }

    /// A container for the given model.
    public init(name: String, managedObjectModel model: NSManagedObjectModel) {
        self.name = name
        self.managedObjectModel = model
        self.persistentStoreCoordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        let description = NSPersistentStoreDescription(
            url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        self.persistentStoreDescriptions = [description]
        super.init()
    }

    /// Adds every described store, reporting each outcome to the handler: `nil` or a typed
    /// error (a missing or unwritable folder, a damaged file, a store of another model…).
    open func loadPersistentStores(
        completionHandler block: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void
    ) {
        for description in persistentStoreDescriptions {
            if let modelProblem {
                block(description, CoreDataError.make(NSCoreDataError, modelProblem))
                continue
            }
            let defaultDirectory = Self.defaultDirectoryURL().standardizedFileURL
            if description.type != NSInMemoryStoreType, let url = description.url,
                url.deletingLastPathComponent().standardizedFileURL == defaultDirectory
            {
                try? FileManager.default.createDirectory(at: defaultDirectory, withIntermediateDirectories: true)
            }
            persistentStoreCoordinator.addPersistentStore(with: description, completionHandler: block)
        }
    }

    /// A new private-queue context on the container's coordinator.
    open func newBackgroundContext() -> NSManagedObjectContext {
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = persistentStoreCoordinator
        return context
    }

    /// Runs the block on a new background context's queue.
    open func performBackgroundTask(_ block: @escaping (NSManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs the block on a new background context and returns its result, or throws its error.
    public func performBackgroundTask<T, E: Error>(
        _ block: @escaping (NSManagedObjectContext) throws(E) -> T
    ) async throws(E) -> T {
        let context = newBackgroundContext()
        return try await context.perform(schedule: .enqueued) { () throws(E) -> T in try block(context) }
    }
}

/// Finds the model file `NSPersistentContainer(name:)` names.
enum ContainerModelLocator {
    static func model(named name: String) -> (model: NSManagedObjectModel?, problem: String?) {
        var bundles = [Bundle.main] + Bundle.allBundles
        let executable = Bundle.main.executableURL?.deletingLastPathComponent()
        for directory in [executable, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)].compactMap({ $0 }) {
            if let bundle = Bundle(url: directory) { bundles.append(bundle) }
        }
        let candidates = ModelFileLocator.modelURLs(in: bundles).filter { url in
            url.deletingPathExtension().lastPathComponent == name
        }
        guard let url = candidates.first else {
            let places = "the program's bundles, next to it, or in the working directory"
            return (nil, "No model named \(name) (.momd, .mom, .xcdatamodeld or .xcdatamodel) was found in \(places).")
        }
        do {
            return (try NSManagedObjectModel.load(contentsOf: url), nil)
        } catch {
            return (nil, "The model \(url.path) could not be loaded: \(error)")
        }
    }
}
