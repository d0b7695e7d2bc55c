import Foundation
import Synchronization

/// The keys of the variables a mapping model's expressions read, with Apple's names.
public let NSMigrationManagerKey = "manager"
public let NSMigrationSourceObjectKey = "source"
public let NSMigrationDestinationObjectKey = "destination"
public let NSMigrationEntityMappingKey = "entityMapping"
public let NSMigrationPropertyMappingKey = "propertyMapping"
public let NSMigrationEntityPolicyKey = "entityPolicy"

/// How the objects of one entity mapping are migrated: a migration manager calls these hooks
/// in Apple's three passes (create the destination objects, then their relationships, then
/// validate), one policy object per entity mapping.
///
/// The default implementation creates one destination object per source object, gives its
/// attributes the values of the mapping's attribute expressions, and then its relationships
/// those of the relationship expressions. An app subclasses it to do more, and names the
/// subclass in the entity mapping (`entityMigrationPolicyClassName`):
///
/// ```swift
/// final class PostPolicy: NSEntityMigrationPolicy {
///     override func createDestinationInstances(
///         forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
///     ) throws {
///         try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///         let post = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source])[0]
///         post.setValue((source.value(forKey: "title") as? String)?.uppercased(), forKey: "title")
///     }
/// }
/// ```
///
/// Objective-C methods called from expressions (`FUNCTION($entityPolicy, "convert:", $source.x)`)
/// have no runtime to reach them on Linux: a subclass answers them by overriding
/// `value(forFunction:arguments:)`.
open class NSEntityMigrationPolicy: NSObject, PredicateFunctionTarget, @unchecked Sendable {
    public required override init() { super.init() }

    /// Called before the mapping's objects are created.
    open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

    /// Creates the destination objects of one source object and associates them with it.
    open func createDestinationInstances(
        forSource sInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        guard let entity = manager.destinationEntity(for: mapping) else { return }
        let destination = NSManagedObject(entity: entity, insertInto: manager.destinationContext)
        for propertyMapping in mapping.attributeMappings ?? [] {
            guard let name = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            let value = try manager.evaluate(
                expression, source: sInstance, destination: destination, mapping: mapping, propertyMapping: propertyMapping,
                policy: self)
            try manager.assign(value, to: name, of: destination, mapping: mapping)
        }
        manager.associate(sourceInstance: sInstance, withDestinationInstance: destination, for: mapping)
    }

    /// Called after every object of the mapping was created.
    open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Gives a destination object its relationships, from the mapping's relationship
    /// expressions evaluated on its source object.
    open func createRelationships(
        forDestination dInstance: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
        let name = mapping.name ?? ""
        let source = manager.sourceInstances(forEntityMappingName: name, destinationInstances: [dInstance]).first
        for propertyMapping in mapping.relationshipMappings ?? [] {
            guard let key = propertyMapping.name, let expression = propertyMapping.valueExpression else { continue }
            let value = try manager.evaluate(
                expression, source: source, destination: dInstance, mapping: mapping, propertyMapping: propertyMapping,
                policy: self)
            try manager.assign(value, to: key, of: dInstance, mapping: mapping)
        }
    }

    /// Called after every object of the mapping has its relationships.
    open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called in the validation pass, before the destination objects are validated and saved.
    open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// Called when the migration of the mapping is over.
    open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

    /// The value of `FUNCTION($entityPolicy, selector, arguments…)`. (A Strata addition:
    /// Apple's framework sends the selector through the Objective-C runtime.) The default
    /// answers `nil`.
    open func value(forFunction selector: String, arguments: [Any?]) throws -> Any? { nil }

    func predicateFunctionValue(_ selector: String, arguments: [Any?]) -> Any? {
        do {
            return try value(forFunction: selector, arguments: arguments)
        } catch {
            MigrationFunctionErrors.record(error)
            return nil
        }
    }

    // MARK: Finding policy classes by name

    private static let registered = Mutex<[String: NSEntityMigrationPolicy.Type]>([:])

    /// Makes a policy class known by its name, qualified and not. (A Strata addition: Apple's
    /// framework finds any class by name through the Objective-C runtime; Strata finds
    /// qualified Swift names (`App.PostPolicy`) without it, and unqualified ones in the
    /// modules of the classes it has seen.)
    public static func register(_ type: NSEntityMigrationPolicy.Type) {
        let qualified = String(reflecting: type)
        registered.withLock { classes in
            classes[qualified] = type
            if let last = qualified.split(separator: ".").last { classes[String(last)] = type }
        }
    }

    /// The policy class an entity mapping names: a registered one, a qualified Swift name, or
    /// the unqualified name in the modules Strata knows (those of registered policies and of
    /// managed object classes). `nil` when none is found.
    static func policyClass(named name: String) -> NSEntityMigrationPolicy.Type? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return NSEntityMigrationPolicy.self }
        if let type = registered.withLock({ $0[trimmed] }) { return type }
        if let type = _typeByName(trimmed) as? NSEntityMigrationPolicy.Type { return type }
        let unqualified = trimmed.split(separator: ".").last.map(String.init) ?? trimmed
        if let type = registered.withLock({ $0[unqualified] }) { return type }
        let policyModules = registered.withLock { classes in
            classes.keys.compactMap { $0.split(separator: ".").count > 1 ? $0.split(separator: ".").first.map(String.init) : nil }
        }
        for module in policyModules + ManagedObjectClasses.knownModules() {
            if let type = _typeByName("\(module).\(unqualified)") as? NSEntityMigrationPolicy.Type { return type }
        }
        return nil
    }
}

/// Errors thrown by policy functions called from expressions, which the expression
/// evaluator cannot pass on: the migration manager picks them up after each evaluation.
enum MigrationFunctionErrors {
    private static let pending = Mutex<[ObjectIdentifier: any Error]>([:])

    static func record(_ error: any Error) {
        let thread = ObjectIdentifier(Thread.current)
        pending.withLock { $0[thread] = $0[thread] ?? error }
    }

    static func take() -> (any Error)? {
        let thread = ObjectIdentifier(Thread.current)
        return pending.withLock { $0.removeValue(forKey: thread) }
    }
}
