void test_func() {
    some_struct->field.method();
    some_struct->field.other_method(1, 2, 3);
}
