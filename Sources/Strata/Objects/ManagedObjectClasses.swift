import Foundation
import Synchronization

/// Which Swift class makes the objects of an entity, and which entity a class stands for.
///
/// Core Data finds classes through the Objective-C runtime; Linux has none. Strata resolves
/// the model's class names with the Swift runtime: fully qualified names (`App.Book`)
/// directly, unqualified ones (`Book`, `.Book`) in the modules of the `NSManagedObject`
/// subclasses the program has used so far. Using a class (creating an object, calling its
/// `fetchRequest()`, fetching with `NSFetchRequest<Book>`) registers it.
enum ManagedObjectClasses {
    private struct State {
        var classesByName: [String: NSManagedObject.Type] = [:]
        var modules: [String] = []
        var resolved: [String: NSManagedObject.Type] = [:]
        /// Classes already registered, so that registering again (every new object does)
        /// costs a lookup instead of building the class's name.
        var registered: Set<ObjectIdentifier> = []
        /// The last resolution of each entity, for `object(with:)` and fetches, which ask
        /// once per object; checked against the entity's class name before use.
        var resolvedByEntity: [ObjectIdentifier: ResolvedClass] = [:]
        /// The entity of a class in a model, for `init(context:)`, which asks once per object.
        var entitiesByClass: [ClassInModel: EntityOfClass] = [:]
    }

    private struct ResolvedClass {
        let entity: NSEntityDescription
        let name: String
        let type: NSManagedObject.Type
    }

    private struct ClassInModel: Hashable {
        let type: ObjectIdentifier
        let model: ObjectIdentifier
    }

    private struct EntityOfClass {
        weak var model: NSManagedObjectModel?
        let entity: NSEntityDescription
    }

    private static let state = Protected(State())

    /// How many times a new class was registered: resolutions cached elsewhere are good while
    /// it has not changed.
    static var generation: Int { registrations.load(ordering: .acquiring) }
    private static let registrations = Atomic<Int>(0)
    /// The class registered last: every new object registers its class, most often the same
    /// as the object before, which this tells without a lock.
    private static let lastRegistered = Atomic<UInt>(0)

    /// The modules of the subclasses registered so far, where unqualified class names of
    /// other kinds (migration policies) are looked for too.
    static func knownModules() -> [String] { state.withLock { $0.modules } }

    /// Remembers a subclass and its module.
    static func register(_ type: NSManagedObject.Type) {
        let identity = UInt(bitPattern: ObjectIdentifier(type))
        if lastRegistered.load(ordering: .relaxed) == identity { return }
        guard type != NSManagedObject.self else { return }
        if state.withLock({ $0.registered.contains(ObjectIdentifier(type)) }) {
            lastRegistered.store(identity, ordering: .relaxed)
            return
        }
        let qualified = String(reflecting: type)
        state.withLock { state in
            state.registered.insert(ObjectIdentifier(type))
            guard state.classesByName[qualified] == nil else { return }
            let unqualified = qualified.split(separator: ".").last.map(String.init) ?? qualified
            state.classesByName[qualified] = type
            if state.classesByName[unqualified] == nil { state.classesByName[unqualified] = type }
            if let module = qualified.split(separator: ".").first.map(String.init), !state.modules.contains(module) {
                state.modules.append(module)
            }
            state.resolved.removeAll()
            state.resolvedByEntity.removeAll()
            state.entitiesByClass.removeAll()
            registrations.add(1, ordering: .releasing)
        }
        lastRegistered.store(identity, ordering: .relaxed)
    }

    /// The class for objects of the entity: the model's class name resolved as described
    /// above, or `NSManagedObject`.
    static func objectClass(for entity: NSEntityDescription) -> NSManagedObject.Type {
        let name = entity.managedObjectClassName ?? "NSManagedObject"
        if name == "NSManagedObject" || name.isEmpty { return NSManagedObject.self }
        if let cached = state.withLock({ $0.resolvedByEntity[ObjectIdentifier(entity)] }), cached.entity === entity,
            cached.name == name
        {
            return cached.type
        }
        let hints = entity.managedObjectModel?.classModuleNames ?? []
        let key = hints.joined(separator: ",") + "|" + name
        return state.withLock { state in
            let found = state.resolved[key] ?? lookUp(name, hints: hints, in: state) ?? NSManagedObject.self
            state.resolved[key] = found
            state.resolvedByEntity[ObjectIdentifier(entity)] = ResolvedClass(entity: entity, name: name, type: found)
            return found
        }
    }

    private static func lookUp(_ name: String, hints: [String], in state: State) -> NSManagedObject.Type? {
        let trimmed = name.hasPrefix(".") ? String(name.dropFirst()) : name
        // An unqualified name is first looked for in the module the model belongs to, since
        // several modules of one program may have classes of that name.
        if !trimmed.contains(".") {
            for module in hints {
                if let type = _typeByName("\(module).\(trimmed)") as? NSManagedObject.Type { return type }
            }
        }
        if let known = state.classesByName[trimmed] { return known }
        if let type = _typeByName(trimmed) as? NSManagedObject.Type { return type }
        let unqualified = trimmed.split(separator: ".").last.map(String.init) ?? trimmed
        for module in state.modules {
            if let type = _typeByName("\(module).\(unqualified)") as? NSManagedObject.Type { return type }
        }
        if let known = state.classesByName[unqualified] { return known }
        // Nothing registered yet (the class's first use): the program's own module, where an
        // executable's classes are, and where a model found beside the executable came from.
        if !trimmed.contains("."), let module = mainModule,
            let type = _typeByName("\(module).\(trimmed)") as? NSManagedObject.Type
        {
            return type
        }
        return nil
    }

    /// The module of the running executable, as SwiftPM names an executable target's module
    /// after it (`my-app` is `my_app`).
    private static let mainModule: String? = {
        guard let executable = CommandLine.arguments.first, !executable.isEmpty else { return nil }
        let name = URL(fileURLWithPath: executable).lastPathComponent
        return name.isEmpty ? nil : ModelFileLocator.moduleName(ofTarget: name)
    }()

    /// The entity of a model whose class is the given class.
    static func entity(for type: NSManagedObject.Type, in model: NSManagedObjectModel) -> NSEntityDescription? {
        register(type)
        let key = ClassInModel(type: ObjectIdentifier(type), model: ObjectIdentifier(model))
        if let cached = state.withLock({ $0.entitiesByClass[key] }), cached.model === model,
            cached.entity.managedObjectModel === model
        {
            return cached.entity
        }
        guard let entity = findEntity(for: type, in: model) else { return nil }
        state.withLock { $0.entitiesByClass[key] = EntityOfClass(model: model, entity: entity) }
        return entity
    }

    private static func findEntity(for type: NSManagedObject.Type, in model: NSManagedObjectModel) -> NSEntityDescription? {
        let name = ClassName(type)
        return model.entities.first { name.isNamed(by: $0) } ?? model.entitiesByName[name.unqualified]
    }

    /// A class's name, qualified (`App.Book`) and not (`Book`).
    private struct ClassName {
        let qualified: String
        let unqualified: String

        init(_ type: NSManagedObject.Type) {
            qualified = String(reflecting: type)
            unqualified = qualified.split(separator: ".").last.map(String.init) ?? qualified
        }

        /// Whether the entity's class name is this one (qualified or not).
        func isNamed(by entity: NSEntityDescription) -> Bool {
            let name = entity.managedObjectClassName ?? ""
            let trimmed = name.hasPrefix(".") ? String(name.dropFirst()) : name
            return trimmed == qualified || trimmed == unqualified
                || trimmed.split(separator: ".").last.map(String.init) == unqualified
        }
    }

    /// The entity of the class in the models used so far by coordinators, newest first. An
    /// entity that names the class as its class wins over one that only shares its name in
    /// a model used later (a model whose `Novel` entity makes `NSManagedObject`s does not
    /// stand for the `Novel` class).
    static func entity(for type: NSManagedObject.Type) -> NSEntityDescription? {
        let name = ClassName(type)
        var sharingTheName: NSEntityDescription?
        for model in KnownModels.all() {
            guard let entity = entity(for: type, in: model) else { continue }
            if name.isNamed(by: entity) { return entity }
            if sharingTheName == nil { sharingTheName = entity }
        }
        return sharingTheName
    }
}

/// The models coordinators have been created with, for `NSManagedObject.entity()`.
enum KnownModels {
    private static let models = Protected([WeakModel]())

    private final class WeakModel: @unchecked Sendable {
        weak var model: NSManagedObjectModel?
        init(_ model: NSManagedObjectModel) { self.model = model }
    }

    static func add(_ model: NSManagedObjectModel) {
        models.withLock { list in
            list.removeAll { $0.model == nil || $0.model === model }
            list.append(WeakModel(model))
        }
    }

    static func all() -> [NSManagedObjectModel] {
        models.withLock { list in list.reversed().compactMap(\.model) }
    }
}
