import Testing

@Test func placeholder_store() {}
