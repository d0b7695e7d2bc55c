import Foundation

/// Transformable attributes in the stores that write bytes (SQLite, binary): a value is stored
/// as the data its attribute's value transformer makes (the transformer registered under
/// `valueTransformerName`), or as a keyed archive when the attribute names none, which is
/// Core Data's default (the `NSKeyedUnarchiveFromData` transformer).
enum TransformableValue {
    /// The value of stored data; `nil` when the transformer cannot read it back. Without a
    /// registered transformer of the attribute's name, the data itself, as it is all there is.
    static func reverse(_ data: Data, attribute: NSAttributeDescription) -> Any? {
        if let name = attribute.valueTransformerName, !name.isEmpty {
            guard let transformer = ValueTransformer.registered(NSValueTransformerName(name)) else { return data }
            return readsForward(transformer) ? transformer.transformedValue(data) : transformer.reverseTransformedValue(data)
        }
        // Data that is no keyed archive is kept as it is (written by an older Strata as raw bytes).
        return (try? NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data)) ?? data
    }

    /// The data stored for a value. Throws `NSManagedObjectValidationError` when the value
    /// cannot be transformed, so that the save fails before anything is written.
    static func forward(_ value: Any, attribute: NSAttributeDescription) throws -> Data {
        guard let name = attribute.valueTransformerName, !name.isEmpty else { return try archive(value, attribute: attribute) }
        guard let transformer = ValueTransformer.registered(NSValueTransformerName(name)) else {
            // Data read without the transformer (see `reverse`) is written back as it was.
            if let data = value as? Data { return data }
            throw failure(
                value, attribute,
                "no value transformer named \"\(name)\" is registered (ValueTransformer.setValueTransformer(_:forName:))")
        }
        let transformed =
            readsForward(transformer) ? transformer.reverseTransformedValue(value) : transformer.transformedValue(value)
        switch transformed {
        case let data as Data: return data
        case nil: throw failure(value, attribute, "its value transformer \"\(name)\" returned nil")
        case let other?:
            throw failure(value, attribute, "its value transformer \"\(name)\" returned \(type(of: other)), not Data")
        }
    }

    /// Whether the transformer runs from stored data to values (`NSSecureUnarchiveFromDataTransformer`
    /// and its subclasses, as on Apple's systems), so that values are stored through its
    /// reverse transformation; other transformers run from values to data.
    private static func readsForward(_ transformer: ValueTransformer) -> Bool {
        transformer is NSSecureUnarchiveFromDataTransformer
    }

    /// A keyed archive of the value, bridged to its Foundation class first (`[String]` as an
    /// `NSArray`, `URL` as an `NSURL`…), as the default transformer archives objects.
    private static func archive(_ value: Any, attribute: NSAttributeDescription) throws -> Data {
        guard let object = (value as AnyObject) as? (NSObject & NSCoding) else {
            throw failure(value, attribute, "\(type(of: value)) does not conform to NSCoding")
        }
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        } catch {
            throw failure(value, attribute, "keyed archiving failed: \(error.localizedDescription)")
        }
    }

    private static func failure(_ value: Any, _ attribute: NSAttributeDescription, _ reason: String) -> NSError {
        CoreDataError.make(
            NSManagedObjectValidationError,
            "The value of \(attribute.entity?.name ?? "?").\(attribute.name) cannot be stored: \(reason).",
            userInfo: [NSValidationKeyErrorKey: attribute.name, NSValidationValueErrorKey: value])
    }
}
