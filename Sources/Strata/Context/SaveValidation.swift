import Foundation

/// The checks a save makes before anything is written: required values, relationship
/// counts, and Deny delete rules. Every failure of a save is reported together.
extension NSManagedObject {
    func throwing(_ errors: [NSError]) throws {
        if let error = CoreDataError.combined(errors) { throw error }
    }

    /// Required properties without a value (1570) and to-many relationships with too few
    /// (1580) or too many (1590) objects.
    func propertyErrors() -> [NSError] {
        var errors: [NSError] = []
        for index in layout.persistentIndexes {
            let property = layout.properties[index]
            if property is NSDerivedAttributeDescription { continue }
            switch layout.kinds[index] {
            case .attribute, .toOne:
                if !property.isOptional && values[index] == nil {
                    errors.append(
                        CoreDataError.validation(
                            NSValidationMissingMandatoryPropertyError, object: self, key: property.name,
                            "\(entity.name ?? "?").\(property.name) is a required value."))
                }
            case .toMany:
                guard let relationship = property as? NSRelationshipDescription else { continue }
                let count = toManyObjects(at: index).count
                if count == 0 && !relationship.isOptional {
                    errors.append(
                        CoreDataError.validation(
                            NSValidationMissingMandatoryPropertyError, object: self, key: property.name,
                            "\(entity.name ?? "?").\(property.name) is a required relationship."))
                } else if count > 0 && count < relationship.minCount {
                    errors.append(
                        CoreDataError.validation(
                            NSValidationRelationshipLacksMinimumCountError, object: self, key: property.name,
                            "\(entity.name ?? "?").\(property.name) needs at least \(relationship.minCount) objects."))
                } else if relationship.maxCount > 0 && count > relationship.maxCount {
                    errors.append(
                        CoreDataError.validation(
                            NSValidationRelationshipExceedsMaximumCountError, object: self, key: property.name,
                            "\(entity.name ?? "?").\(property.name) allows at most \(relationship.maxCount) objects."))
                }
            case .other:
                continue
            }
        }
        return errors
    }

    /// Deny relationships that still have destinations that are not deleted too (1600).
    func denyErrors() -> [NSError] {
        var errors: [NSError] = []
        for (index, property) in layout.properties.enumerated() {
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
