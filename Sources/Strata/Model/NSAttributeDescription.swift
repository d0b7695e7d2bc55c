import Foundation

/// An attribute of an entity: a typed value stored in a column of the entity's table.
///
/// ```swift
/// let title = NSAttributeDescription()
/// title.name = "title"
/// title.attributeType = .stringAttributeType
/// title.isOptional = false
/// title.defaultValue = ""
/// ```
open class NSAttributeDescription: NSPropertyDescription, @unchecked Sendable {
    /// The attribute's type, with Core Data's raw values.
    public var attributeType: NSAttributeType = .undefinedAttributeType
    /// The attribute's type in the iOS 15 spelling; the same value as `attributeType`.
    public var type: AttributeType {
        get { AttributeType(rawValue: attributeType.rawValue) }
        set { attributeType = NSAttributeType(rawValue: newValue.rawValue) ?? .undefinedAttributeType }
    }
    /// The name of the class of the attribute's values (`customClassName` in model files),
    /// for transformable and composite attributes.
    public var attributeValueClassName: String?
    /// The value a new object starts with, of the attribute's Swift type
    /// (`Int16`…`Int64`, `Decimal`, `Double`, `Float`, `String`, `Bool`, `Date`, `Data`,
    /// `UUID`, `URL`).
    public var defaultValue: Any? {
        didSet {
            defaultValueSourceText = nil
            invalidDefaultValueText = nil
        }
    }
    /// The exact text a model file gave for the default value, so that writing the model
    /// back keeps Xcode's spelling ("0.0" rather than "0").
    var defaultValueSourceText: String?
    /// A model file's default value text that is not a plain value of the attribute's type
    /// ("YES" for an integer); kept so that validation can warn about it. `defaultValue`
    /// holds what Core Data reads from it, if anything.
    var invalidDefaultValueText: String?
    /// The name of the `ValueTransformer` for a transformable attribute.
    public var valueTransformerName: String?
    /// Whether large binary values may live in files beside the store.
    public var allowsExternalBinaryDataStorage: Bool = false
    /// Whether a deleted object's value is kept in its persistent-history tombstone.
    public var preservesValueInHistoryOnDeletion: Bool = false
    /// Whether CloudKit encrypts the value (kept for model fidelity; no effect in Strata).
    public var allowsCloudEncryption: Bool = false
    /// Whether generated classes use a Swift scalar (`Int64`, `Bool`…) rather than an
    /// optional object type for this attribute. Affects code generation only.
    public var usesScalarValueType: Bool = false
    /// The minimum (numbers, dates) or minimum length (strings, binary data), as written in
    /// the model file's `minValueString`.
    public var minValueString: String?
    /// The maximum (numbers, dates) or maximum length (strings, binary data), as written in
    /// the model file's `maxValueString`.
    public var maxValueString: String?
    /// A regular expression every string value must match in full.
    public var regularExpressionString: String?
    /// The composite type's name, for `compositeAttributeType` attributes.
    public var compositeTypeName: String?

    /// The default value as Xcode writes it in `defaultValueString`/`defaultDateTimeInterval`.
    public var defaultValueString: String? {
        guard let defaultValue else { return nil }
        return defaultValueSourceText ?? AttributeValueText.text(for: defaultValue, type: attributeType)
    }

    /// The default value in a canonical spelling, for comparisons.
    var canonicalDefaultValueText: String? {
        defaultValue.map { AttributeValueText.text(for: $0, type: attributeType) }
    }

    override class func makeEmpty() -> NSPropertyDescription { NSAttributeDescription() }

    open override func copy(with zone: NSZone? = nil) -> Any {
        let copy = super.copy(with: zone)
        if let copy = copy as? NSAttributeDescription { copyAttributeFields(into: copy) }
        return copy
    }

    func copyAttributeFields(into copy: NSAttributeDescription) {
        copy.attributeType = attributeType
        copy.attributeValueClassName = attributeValueClassName
        copy.defaultValue = defaultValue
        copy.defaultValueSourceText = defaultValueSourceText
        copy.invalidDefaultValueText = invalidDefaultValueText
        copy.valueTransformerName = valueTransformerName
        copy.allowsExternalBinaryDataStorage = allowsExternalBinaryDataStorage
        copy.preservesValueInHistoryOnDeletion = preservesValueInHistoryOnDeletion
        copy.allowsCloudEncryption = allowsCloudEncryption
        copy.usesScalarValueType = usesScalarValueType
        copy.minValueString = minValueString
        copy.maxValueString = maxValueString
        copy.regularExpressionString = regularExpressionString
        copy.compositeTypeName = compositeTypeName
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard super.isEqual(object), let other = object as? NSAttributeDescription else { return false }
        return attributeType == other.attributeType
            && attributeValueClassName == other.attributeValueClassName
            && canonicalDefaultValueText == other.canonicalDefaultValueText
            && valueTransformerName == other.valueTransformerName
            && allowsExternalBinaryDataStorage == other.allowsExternalBinaryDataStorage
            && preservesValueInHistoryOnDeletion == other.preservesValueInHistoryOnDeletion
            && allowsCloudEncryption == other.allowsCloudEncryption
            && usesScalarValueType == other.usesScalarValueType
            && minValueString == other.minValueString && maxValueString == other.maxValueString
            && regularExpressionString == other.regularExpressionString
            && compositeTypeName == other.compositeTypeName
    }

    open override var description: String {
        "\(super.description), attributeType \(attributeType.xcodeModelName ?? "Undefined")"
    }
}
