import SwiftDiagnostics

/// The errors SwiftData's macros (`@Model`, `@ModelActor`) report on declarations they
/// cannot expand.
enum ModelDiagnostic: DiagnosticMessage, Equatable {
    case notAClass
    case genericClass
    case letProperty(String)
    case missingType(String)
    case severalBindings
    case transientWithoutValue
    case attributeAndRelationship(String)
    case unsupportedType(String, kind: String)
    case notAnActor

    var message: String {
        switch self {
        case .notAClass:
            "'@Model' can only be applied to a class"
        case .genericClass:
            "'@Model' does not support generic classes"
        case .letProperty(let name):
            "'@Model' persists 'var' properties; make '\(name)' a 'var'"
        case .missingType(let name):
            "'\(name)' needs a type annotation"
        case .severalBindings:
            "'@Model' persists one property per declaration; declare each property on its own"
        case .transientWithoutValue:
            "a @Transient property needs an initial value"
        case .attributeAndRelationship(let name):
            "'\(name)' cannot be both an @Attribute and a @Relationship"
        case .unsupportedType(let name, let kind):
            "'\(name)' is \(kind), which '@Model' cannot persist; use a Codable type, or mark it @Transient"
        case .notAnActor:
            "'@ModelActor' can only be applied to an actor"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notAClass: id = "modelNotAClass"
        case .genericClass: id = "modelGenericClass"
        case .letProperty: id = "modelLetProperty"
        case .missingType: id = "modelMissingType"
        case .severalBindings: id = "modelSeveralBindings"
        case .transientWithoutValue: id = "modelTransientWithoutValue"
        case .attributeAndRelationship: id = "modelAttributeAndRelationship"
        case .unsupportedType: id = "modelUnsupportedType"
        case .notAnActor: id = "modelActorNotAnActor"
        }
        return MessageID(domain: "StrataMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The fixes offered with SwiftData's macros' errors.
enum ModelFixIt: FixItMessage {
    case useClass
    case useVar
    case useActor
    case markTransient

    var message: String {
        switch self {
        case .useClass: "Replace 'struct' with 'class'"
        case .useVar: "Replace 'let' with 'var'"
        case .useActor: "Replace 'class' with 'actor'"
        case .markTransient: "Mark it @Transient"
        }
    }

    var fixItID: MessageID {
        switch self {
        case .useClass: MessageID(domain: "StrataMacros", id: "modelUseClass")
        case .useVar: MessageID(domain: "StrataMacros", id: "modelUseVar")
        case .useActor: MessageID(domain: "StrataMacros", id: "modelUseActor")
        case .markTransient: MessageID(domain: "StrataMacros", id: "modelMarkTransient")
        }
    }
}
