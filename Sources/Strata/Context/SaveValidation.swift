import Foundation

/// The checks a save makes before anything is written: every property through
/// `validateValue(_:forKey:)` (required values, relationship counts, the model's attribute
/// rules, and a subclass's own checks), and Deny delete rules. Every failure of a save is
/// reported together.
extension NSManagedObject {
    func throwing(_ errors: [NSError]) throws {
        if let error = CoreDataError.combined(errors) { throw error }
    }

    /// Runs `validateValue(_:forKey:)` for each of the object's properties, as Apple's
    /// `validateForInsert`/`validateForUpdate` do ("iterates through all of the receiver's
    /// properties"), and collects the errors. A value the hook replaces is set on the
    /// object, so that the save writes the coerced value.
    func propertyErrors() -> [NSError] {
        var errors: [NSError] = []
        for index in layout.validatedIndexes {
            let name = layout.name(at: index)
            var proposed = primitiveValue(at: index)
            do {
                // A hook that leaves an attribute's value alone leaves its container's words as
                // they were (the object still holds the value read, so equal words are that very
                // value); one that assigns is asked whether it replaced the value. Relationships,
                // whose values are made for the call (`NSSet`s), are compared with what was passed.
                if layout.kinds[index] == .attribute {
                    let before = Self.words(of: proposed)
                    keyHint = Int32(truncatingIfNeeded: index)
                    try validateValue(&proposed, forKey: name)
                    if !Self.sameWords(Self.words(of: proposed), before),
                        Self.isReplacement(proposed, of: primitiveValue(at: index))
                    {
                        setValue(proposed, forKey: name)
                    }
                } else {
                    let passed = proposed
                    keyHint = Int32(truncatingIfNeeded: index)
                    try validateValue(&proposed, forKey: name)
                    // The set passed back itself is no replacement, said without comparing
                    // contents: `NSSet`'s equality on Linux bridges the other set for each
                    // element (a tag of 7,500 to-dos took 56M element steps).
                    if !Self.isSameObject(proposed, passed) && Self.isReplacement(proposed, of: passed) {
                        setValue(proposed, forKey: name)
                    }
                }
            } catch let error as NSError {
                if error.code == NSValidationMultipleErrorsError, let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError]
                {
                    errors += detailed
                } else {
                    errors.append(error)
                }
            }
        }
        return errors
    }

    /// The model's rules for one property, checked against a proposed value: required
    /// values (1570), to-many counts (1580, 1590; a required to-many is only held to its
    /// minimum count) and the attribute rules of
    /// `AttributeValidation`. Unknown keys and derived attributes (computed by the store)
    /// pass.
    func modelRuleError(for proposed: Any?, forKey key: String) -> NSError? {
        guard let index = layout.index(of: key) else { return nil }
        let property = layout.properties[index]
        let value = proposed.flatMap { ManagedValueCoercion.isNull($0) ? nil : $0 }
        // Made only for an error's text: most properties pass, and every save asks.
        var name: String { "\(entity.name ?? "?").\(key)" }
        switch property {
        case is NSDerivedAttributeDescription:
            return nil
        case let relationship as NSRelationshipDescription where relationship.isToMany:
            // The counts apply to the set: a required to-many without a minimum count may be
            // empty (as on Apple's systems), an optional one may be empty whatever its minimum.
            // Without a rule on the count or a validation predicate, the objects are not counted
            // (that takes a copy of the set).
            guard relationship.minCount > 0 || relationship.maxCount > 0 || !relationship.validationPredicates.isEmpty
            else { return nil }
            let count = Self.objects(in: value).count
            if count == 0 && relationship.isOptional {
                return nil
            } else if count < relationship.minCount {
                return CoreDataError.validation(
                    NSValidationRelationshipLacksMinimumCountError, object: self, key: key, value: value,
                    "\(name) needs at least \(relationship.minCount) objects.")
            } else if relationship.maxCount > 0 && count > relationship.maxCount {
                return CoreDataError.validation(
                    NSValidationRelationshipExceedsMaximumCountError, object: self, key: key, value: value,
                    "\(name) allows at most \(relationship.maxCount) objects.")
            }
            return value.flatMap { AttributeValidation.predicateError(for: $0, of: relationship, on: self) }
        default:
            guard value != nil else {
                return property.isOptional
                    ? nil
                    : CoreDataError.validation(
                        NSValidationMissingMandatoryPropertyError, object: self, key: key, "\(name) is a required value.")
            }
            guard let attribute = property as? NSAttributeDescription else {
                return value.flatMap { AttributeValidation.predicateError(for: $0, of: property, on: self) }
            }
            return AttributeValidation.error(for: value, of: attribute, on: self)
        }
    }

    /// The words of an optional value's container, to tell whether it was assigned to.
    /// `nil` where an `Any?` is not four words (three of value buffer, the type's metadata).
    static func words(of value: Any?) -> (UInt, UInt, UInt, UInt)? {
        withUnsafeBytes(of: value) { bytes -> (UInt, UInt, UInt, UInt)? in
            let size = MemoryLayout<UInt>.size
            guard bytes.count == 4 * size else { return nil }
            return (
                bytes.load(as: UInt.self), bytes.load(fromByteOffset: size, as: UInt.self),
                bytes.load(fromByteOffset: 2 * size, as: UInt.self), bytes.load(fromByteOffset: 3 * size, as: UInt.self)
            )
        }
    }

    private static func sameWords(_ lhs: (UInt, UInt, UInt, UInt)?, _ rhs: (UInt, UInt, UInt, UInt)?) -> Bool {
        guard let lhs, let rhs else { return false }
        return lhs == rhs
    }

    /// Whether a validation hook replaced a value: by equality for hashable values, by
    /// identity for objects, by type for other values (a transformable struct that is not
    /// `Hashable` must not count as replaced, and written again, at every save).
    /// Whether both values are the same object. Relationship values are Foundation objects
    /// (`NSSet`, `NSOrderedSet`, managed objects): a cast to `NSObject` tells, where
    /// `as AnyObject` asks for bridging first (6,000 instructions a property at every save).
    static func isSameObject(_ proposed: Any?, _ passed: Any?) -> Bool {
        guard let new = proposed as? NSObject, let old = passed as? NSObject else { return false }
        return new === old
    }

    static func isReplacement(_ proposed: Any?, of current: Any?) -> Bool {
        // The usual case first, a value of a plain type given back as it was: compared in
        // place, without the conformance lookups of a cast to `AnyHashable`.
        if let equal = PlainValues.equalInPlace(proposed, current) { return !equal }
        guard let new = proposed, let old = current else { return (proposed == nil) != (current == nil) }
        if let new = new as? AnyHashable, let old = old as? AnyHashable { return new != old }
        guard type(of: new) is AnyClass, type(of: old) is AnyClass else {
            return ObjectIdentifier(type(of: new)) != ObjectIdentifier(type(of: old))
        }
        return (new as AnyObject) !== (old as AnyObject)
    }

    /// A value in the object form of Apple's `validateValue(_:forKey:)` pointer: Foundation's
    /// classes for Swift's value types.
    static func objectValue(_ value: Any?) -> AnyObject? {
        switch value {
        case nil: nil
        case let string as String: NSString(string: string)
        case let data as Data: NSData(data: data)
        case let date as Date: NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        case let decimal as Decimal: NSDecimalNumber(decimal: decimal)
        case let uuid as UUID: NSUUID(uuidString: uuid.uuidString)
        case let url as URL: NSURL(string: url.absoluteString)
        case let bool as Bool: NSNumber(value: bool)
        case let number as Int16: NSNumber(value: number)
        case let number as Int32: NSNumber(value: number)
        case let number as Int64: NSNumber(value: number)
        case let number as Int: NSNumber(value: number)
        case let number as Double: NSNumber(value: number)
        case let number as Float: NSNumber(value: number)
        case let value?: value as AnyObject
        }
    }

    /// Deny relationships that still have destinations that are not deleted too (1600).
    func denyErrors() -> [NSError] {
        var errors: [NSError] = []
        let kinds = layout.kinds
        for (index, property) in layout.properties.enumerated() where kinds[index] != .attribute && kinds[index] != .other {
            guard let relationship = property as? NSRelationshipDescription, relationship.deleteRule == .denyDeleteRule
            else { continue }
            let destinations: [NSManagedObject] =
                relationship.isToMany
                ? toManyObjects(at: index) : (values[index] as? NSManagedObject).map { [$0] } ?? []
            if destinations.contains(where: { !$0.isDeleted }) {
                errors.append(
                    CoreDataError.validation(
                        NSValidationRelationshipDeniedDeleteError, object: self, key: relationship.name,
                        "\(entity.name ?? "?") cannot be deleted while \(relationship.name) is not empty."))
            }
        }
        return errors
    }
}

extension NSManagedObjectContext {
    /// Validates every object the save touches; throws one error, or
    /// `NSValidationMultipleErrorsError` with all of them under `NSDetailedErrorsKey`.
    func validateChanges() throws {
        var errors: [NSError] = []
        func collect(_ body: () throws -> Void) {
            do {
                try body()
            } catch let error as NSError {
                if error.code == NSValidationMultipleErrorsError, let detailed = error.userInfo[NSDetailedErrorsKey] as? [NSError]
                {
                    errors += detailed
                } else {
                    errors.append(error)
                }
            }
        }
        for object in inserted.objects { collect(object.validateForInsert) }
        for object in updated.objects where !object.changedIndexes.isEmpty { collect(object.validateForUpdate) }
        for object in deleted.objects { collect(object.validateForDelete) }
        if let error = CoreDataError.combined(errors) { throw error }
    }
}
