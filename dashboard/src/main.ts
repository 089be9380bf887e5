import { createApp } from 'vue'
import App from './App.vue'
import { router } from './router'
import { completeNaiveAria } from './layout/naive_aria'

createApp(App).use(router).mount('#app')
// Dialogs are drawn outside the app's element (at the end of the body): the whole body is watched.
completeNaiveAria(document.body)
