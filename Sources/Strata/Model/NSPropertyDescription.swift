import Foundation

/// A property of an entity: the common part of attributes, relationships and fetched
/// properties, as in Core Data.
///
/// Descriptions are mutable while a model is being built and must not be changed once a
/// coordinator uses the model (Core Data has the same rule). They are shared across
/// threads afterwards, hence `@unchecked Sendable`.
open class NSPropertyDescription: NSObject, NSCopying, @unchecked Sendable {
    /// The property's name, unique within its entity and its entity's ancestors.
    public var name: String = ""
    /// The entity that declares the property; set when the property is added to an entity.
    public internal(set) var entity: NSEntityDescription! {
        get { entityAnchor?.entity }
        set { entityAnchor = newValue?.anchor }
    }
    private weak var entityAnchor: EntityAnchor?
    /// Whether the property may be `nil` when the object is saved. `true` by default, as in Core Data.
    public var isOptional: Bool = true
    /// Whether the property lives only in memory and is never stored.
    public var isTransient: Bool = false
    /// Whether the property can be set through key-value coding. Derived attributes are read-only.
    public var isReadOnly: Bool { false }
    /// The legacy per-property index flag (`indexed="YES"`); new models use fetch indexes.
    public var isIndexed: Bool = false
    /// Whether Spotlight indexes the property (`spotlightIndexingEnabled`).
    public var isIndexedBySpotlight: Bool = false
    /// The legacy "store in external record file" flag (`storedInTruthFile`).
    public var isStoredInExternalRecord: Bool = false
    /// Arbitrary application data attached to the property in the model editor.
    public var userInfo: [AnyHashable: Any]?
    /// The string that, when set, changes the property's version hash without changing its shape.
    public var versionHashModifier: String?
    /// Predicates a value of the property must satisfy (`SELF` is the value), checked by
    /// validation; set with `setValidationPredicates(_:withValidationWarnings:)`.
    public private(set) var validationPredicates: [NSPredicate] = []
    /// The warning of each validation predicate: the error's description (a string) or its
    /// code (a number).
    public private(set) var validationWarnings: [Any] = []

    /// Sets the predicates a value must satisfy and the warning reported when each fails.
    ///
    /// ```swift
    /// title.setValidationPredicates([NSPredicate(format: "length >= 3")], withValidationWarnings: ["Too short"])
    /// ```
    public func setValidationPredicates(_ predicates: [NSPredicate]?, withValidationWarnings warnings: [String]?) {
        validationPredicates = predicates ?? []
        validationWarnings = warnings ?? []
    }
    /// The property's former identifier; lightweight migration uses it to follow renames.
    public var renamingIdentifier: String?
    /// XML attributes of the model file that carry no meaning at run time (such as the
    /// legacy `syncable`), kept so that a model written back matches the file it was read from.
    public var modelFileAttributes: [String: String] = [:]
    /// The line of the model file that declared this, for error messages (and tools such as
    /// `strata model validate` that point at it).
    public internal(set) var modelFileLine: Int?

    public override init() { super.init() }

    /// The property's version hash: 32 bytes that change whenever the property changes in a
    /// way that matters to a store (see `VersionHash`).
    public var versionHash: Data { VersionHash.hash(of: self) }

    /// A copy of the property, not attached to any entity.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = Self.makeEmpty()
        copyCommonFields(into: copy)
        return copy
    }

    class func makeEmpty() -> NSPropertyDescription { NSPropertyDescription() }

    func copyCommonFields(into copy: NSPropertyDescription) {
        copy.name = name
        copy.isOptional = isOptional
        copy.isTransient = isTransient
        copy.isIndexed = isIndexed
        copy.isIndexedBySpotlight = isIndexedBySpotlight
        copy.isStoredInExternalRecord = isStoredInExternalRecord
        copy.userInfo = userInfo
        copy.versionHashModifier = versionHashModifier
        copy.validationPredicates = validationPredicates
        copy.validationWarnings = validationWarnings
        copy.renamingIdentifier = renamingIdentifier
        copy.modelFileAttributes = modelFileAttributes
    }

    /// Structural equality: the same definition, whatever entity the property belongs to.
    /// Model-file-only XML attributes (`modelFileAttributes`) do not count.
    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSPropertyDescription, type(of: other) == type(of: self) else {
            return false
        }
        return name == other.name && isOptional == other.isOptional && isTransient == other.isTransient
            && isIndexed == other.isIndexed && isIndexedBySpotlight == other.isIndexedBySpotlight
            && isStoredInExternalRecord == other.isStoredInExternalRecord
            && UserInfo.equal(userInfo, other.userInfo)
            && versionHashModifier == other.versionHashModifier
            && renamingIdentifier == other.renamingIdentifier
    }

    open override var hash: Int { name.hashValue }

    open override var description: String {
        "(\(Swift.type(of: self))) \(name), optional \(isOptional), transient \(isTransient)"
    }
}

/// Comparison of `userInfo` dictionaries, whose values are `Any`: equal when they have the
/// same keys and values that print the same (model files only hold strings).
enum UserInfo {
    static func equal(_ lhs: [AnyHashable: Any]?, _ rhs: [AnyHashable: Any]?) -> Bool {
        let left = lhs ?? [:]
        let right = rhs ?? [:]
        guard left.count == right.count else { return false }
        for (key, value) in left {
            guard let other = right[key] else { return false }
            if let a = value as? AnyHashable, let b = other as? AnyHashable {
                if a != b { return false }
            } else if String(describing: value) != String(describing: other) {
                return false
            }
        }
        return true
    }
}
